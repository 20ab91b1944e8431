// Unit tests for public/js/patch.js: `node --test Tests/browser/`.
// Cases follow RFC 6902 Appendix A plus the shapes the server sends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, PatchError, deepEqual } from '../../public/js/patch.js';

const cases = [
  ['adds an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
  ['adds an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
  ['appends with "-"', { a: [1] }, [{ op: 'add', path: '/a/-', value: 2 }], { a: [1, 2] }],
  ['removes an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
  ['removes an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
  ['replaces a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
  ['moves a value', { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } }],
  ['moves an array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    { foo: ['all', 'cows', 'eat', 'grass'] }],
  ['copies a value', { a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }], { a: { b: 1 }, c: { b: 1 } }],
  ['passes a test', { baz: 'qux', foo: ['a', 2, 'c'] },
    [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }], { baz: 'qux', foo: ['a', 2, 'c'] }],
  ['adds a nested object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }],
    { foo: 'bar', child: { grandchild: {} } }],
  ['adds an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
  ['decodes ~1 and ~0', { 'a/b': 1, 'm~n': 2 },
    [{ op: 'replace', path: '/a~1b', value: 3 }, { op: 'replace', path: '/m~0n', value: 4 }], { 'a/b': 3, 'm~n': 4 }],
  ['replaces the whole document', { counter: '1' }, [{ op: 'replace', path: '', value: { counter: '2' } }], { counter: '2' }],
  ['applies a navigation push', { stack: [{ name: 'home', title: 'Home', params: {} }] },
    [{ op: 'add', path: '/stack/1', value: { name: 'details', title: 'Details', params: { from: 'home' } } }],
    { stack: [{ name: 'home', title: 'Home', params: {} }, { name: 'details', title: 'Details', params: { from: 'home' } }] }],
  ['adds null explicitly', { a: 1 }, [{ op: 'add', path: '/b', value: null }], { a: 1, b: null }],
];

for (const [name, doc, ops, expected] of cases) {
  test(name, () => assert.deepEqual(applyPatch(doc, ops), expected));
}

const failures = [
  ['rejects a failed test', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]],
  ['rejects adding under a missing parent', { foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]],
  ['rejects removing a missing member', { foo: 'bar' }, [{ op: 'remove', path: '/nope' }]],
  ['rejects replacing a missing member', { foo: 'bar' }, [{ op: 'replace', path: '/nope', value: 1 }]],
  ['rejects an index past the end', { a: [1] }, [{ op: 'add', path: '/a/5', value: 2 }]],
  ['rejects a leading-zero index', { a: [1, 2] }, [{ op: 'remove', path: '/a/01' }]],
  ['rejects an unknown op', { a: 1 }, [{ op: 'frobnicate', path: '/a' }]],
  ['rejects a pointer without a slash', { a: 1 }, [{ op: 'remove', path: 'a' }]],
  ['rejects a move into its own child', { a: { b: {} } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]],
  ['rejects a missing value', { a: 1 }, [{ op: 'add', path: '/b' }]],
];

for (const [name, doc, ops] of failures) {
  test(name, () => assert.throws(() => applyPatch(doc, ops), PatchError));
}

test('does not mutate its input, even when a later op fails', () => {
  const doc = { a: [1, 2], b: { c: 1 } };
  const before = structuredClone(doc);
  assert.throws(() => applyPatch(doc, [{ op: 'remove', path: '/a/0' }, { op: 'test', path: '/b/c', value: 9 }]));
  applyPatch(doc, [{ op: 'remove', path: '/a/0' }, { op: 'replace', path: '/b/c', value: 2 }]);
  assert.deepEqual(doc, before);
});

test('copies are independent of their source', () => {
  const out = applyPatch({ a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }, { op: 'replace', path: '/c/b', value: 2 }]);
  assert.deepEqual(out, { a: { b: 1 }, c: { b: 2 } });
});

test('deepEqual ignores key order and tells arrays from objects', () => {
  assert.ok(deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }));
  assert.ok(!deepEqual([], {}));
  assert.ok(!deepEqual({ a: null }, {}));
});
