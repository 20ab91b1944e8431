// Unit tests for public/js/replica.js: the version rules of the wire protocol.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Replica } from '../../public/js/replica.js';

const start = () => {
  const replica = new Replica();
  replica.applySnapshot({ version: 'e.1', views: { counter: { counter: '1' }, quote: { loading: false } } });
  return replica;
};
const inc = (from, to, value) => ({ from, to, views: { counter: { patch: [{ op: 'replace', path: '/counter', value }] } } });

test('applies a patch that starts at the current version', () => {
  const replica = start();
  assert.equal(replica.applyChange(inc('e.1', 'e.2', '2')), 'applied');
  assert.equal(replica.version, 'e.2');
  assert.deepEqual(replica.views.counter, { counter: '2' });
  assert.deepEqual(replica.views.quote, { loading: false });
});

test('ignores a patch that ends at the current version (a dispatch answer got there first)', () => {
  const replica = start();
  replica.applyDispatch({ version: 'e.2', views: { counter: { counter: '2' } } });
  assert.equal(replica.applyChange(inc('e.1', 'e.2', '2')), 'ignored');
  assert.equal(replica.version, 'e.2');
});

test('ignores a late patch to a version already passed', () => {
  const replica = start();
  replica.applyChange(inc('e.1', 'e.2', '2'));
  replica.applyChange(inc('e.2', 'e.3', '3'));
  assert.equal(replica.applyChange(inc('e.1', 'e.2', '2')), 'ignored');
  assert.deepEqual(replica.views.counter, { counter: '3' });
});

test('asks for a refetch when a patch starts elsewhere', () => {
  const replica = start();
  assert.equal(replica.applyChange(inc('e.5', 'e.6', '6')), 'stale');
  assert.equal(replica.version, 'e.1');
});

test('asks for a refetch when a patch does not apply, keeping the old views', () => {
  const replica = start();
  const bad = { from: 'e.1', to: 'e.2', views: { counter: { patch: [{ op: 'remove', path: '/missing' }] } } };
  assert.equal(replica.applyChange(bad), 'stale');
  assert.deepEqual(replica.views.counter, { counter: '1' });
  assert.equal(replica.version, 'e.1');
});

test('moves the cursor on an empty long-poll answer without notifying', () => {
  const replica = start();
  let events = 0;
  replica.subscribe(() => events++);
  assert.equal(replica.applyChange({ from: 'e.1', to: 'e.1', views: {} }), 'applied');
  assert.equal(events, 0);
});

test('does not roll back to an older dispatch answer', () => {
  const replica = start();
  replica.applyChange(inc('e.1', 'e.2', '2'));
  replica.applyChange(inc('e.2', 'e.3', '3'));
  replica.applyDispatch({ version: 'e.2', views: { counter: { counter: '2' } } });
  assert.deepEqual(replica.views.counter, { counter: '3' });
  assert.equal(replica.version, 'e.3');
});

test('ignores a dispatch answer older than one change that covered several versions', () => {
  const replica = start();
  // e.1 to e.3 in one event: the post (e.2) and the chat message it brought back (e.3).
  replica.applyChange(inc('e.1', 'e.3', '3'));
  replica.applyDispatch({ version: 'e.2', views: { counter: { counter: '2' } } });
  assert.deepEqual(replica.views.counter, { counter: '3' });
  assert.equal(replica.version, 'e.3');
});

test('a reset replaces the given views whatever the version', () => {
  const replica = start();
  replica.applyReset({ reset: true, reason: 'epoch', to: 'f.0', views: { counter: { full: { counter: '0' } } } });
  assert.equal(replica.version, 'f.0');
  assert.deepEqual(replica.views.counter, { counter: '0' });
  assert.deepEqual(replica.views.quote, { loading: false });
});

test('clear forgets the versions of a previous session', () => {
  const replica = start();
  replica.applyChange(inc('e.1', 'e.2', '2'));
  replica.clear();
  replica.applySnapshot({ version: 'e.0', views: { counter: { counter: '0' } } });
  assert.equal(replica.applyChange(inc('e.0', 'e.1', '1')), 'applied');
  assert.equal(replica.applyChange(inc('e.1', 'e.2', '2')), 'applied');
});
