-- wrk script: POST {"type":"counter/increase"} to /v1/sessions/{id}/actions?views=counter, keep-alive.
-- usage: wrk -t2 -c64 -d10s -s bench/wrk/dispatch.lua http://127.0.0.1:PORT -- SESSIONS_FILE THREADS
-- (THREADS repeats -t: a thread's Lua state cannot see how many threads there are.) SESSIONS_FILE holds
-- "id token version" lines (bench/bin/mksessions writes it). Each wrk thread takes every THREADS-th
-- session and its requests cycle over them, so 64 sessions are all in use at once; with a one-line file
-- every request goes to the same session. The requests are formatted once, in init, so the client spends
-- no Lua time per request. `done` prints one machine-readable RESULT line (status_errors: answers with a
-- status of 400 or more).

local counter = 0

function setup(thread)
   thread:set("index", counter)
   counter = counter + 1
end

function init(args)
   local file = args[1] or error("pass the sessions file after --")
   local nthreads = tonumber(args[2] or "2")
   local sessions = {}
   for line in io.lines(file) do
      local id, token = line:match("^(%S+)%s+(%S+)")
      if id then table.insert(sessions, { id = id, token = token }) end
   end
   assert(#sessions > 0, "no sessions in " .. file)
   local body = '{"type":"counter/increase"}'
   requests = {}
   for i, s in ipairs(sessions) do
      -- thread k takes sessions k+1, k+1+n, ... (all of them when there are fewer sessions than threads)
      if #sessions < nthreads or (i - 1) % nthreads == index then
         table.insert(requests, wrk.format("POST", "/v1/sessions/" .. s.id .. "/actions?views=counter", {
            ["Authorization"] = "Bearer " .. s.token,
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
