-- wrk script: dispatch.lua with the example's sign-in on every request: POST {"type":"counter/increase"} with
-- 'Authorization: Bearer <jwt>' and the session token in the remvvm_token cookie.
-- usage: wrk -t2 -c64 -d10s -s bench/wrk/dispatch-jwt.lua http://127.0.0.1:PORT -- SESSIONS_FILE THREADS JWT_FILE
-- SESSIONS_FILE holds "id token" lines (bench/jwt.sh writes it, creating each session with the JWT).

local counter = 0

function setup(thread)
   thread:set("index", counter)
   counter = counter + 1
end

function init(args)
   local file = args[1] or error("pass the sessions file after --")
   local nthreads = tonumber(args[2] or "2")
   local jwt = io.open(args[3] or error("pass the JWT file after the threads")):read("*l")
   local sessions = {}
   for line in io.lines(file) do
      local id, token = line:match("^(%S+)%s+(%S+)")
      if id then table.insert(sessions, { id = id, token = token }) end
   end
   assert(#sessions > 0, "no sessions in " .. file)
   local body = '{"type":"counter/increase"}'
   requests = {}
   for i, s in ipairs(sessions) do
      if #sessions < nthreads or (i - 1) % nthreads == index then
         table.insert(requests, wrk.format("POST", "/v1/sessions/" .. s.id .. "/actions?views=counter", {
            ["Authorization"] = "Bearer " .. jwt,
            ["Cookie"] = "remvvm_token=" .. s.token,
            ["Content-Type"] = "application/json",
         }, body))
      end
   end
   next_request = 0
end

function request()
   next_request = next_request % #requests + 1
   return requests[next_request]
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "RESULT rps=%.0f p50_us=%d p99_us=%d requests=%d errors=%d status_errors=%d\n",
      summary.requests / (summary.duration / 1e6), latency:percentile(50), latency:percentile(99),
      summary.requests, e.connect + e.read + e.write + e.timeout, e.status))
end
