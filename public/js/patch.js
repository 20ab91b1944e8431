// RFC 6902 JSON Patch, applied without mutating the input: the replica keeps
// the previous view model intact if a patch turns out to be bad.

/** Raised when an operation cannot be applied (bad path, failed test, ...). */
export class PatchError extends Error {}

/** Returns a new document: `doc` with every op of `ops` applied in order. */
export function applyPatch(doc, ops) {
  if (!Array.isArray(ops)) throw new PatchError('patch must be an array');
  // One wrapper object lets the root ("" path) be replaced like any member.
  const box = { root: structuredClone(doc) };
  for (const op of ops) applyOp(box, op);
  return box.root;
}

function applyOp(box, op) {
  switch (op?.op) {
    case 'add': return add(box, op.path, structuredClone(need(op, 'value')));
    case 'remove': return remove(box, op.path);
    case 'replace': remove(box, op.path); return add(box, op.path, structuredClone(need(op, 'value')));
    case 'move': {
      if (op.path.startsWith(op.from + '/')) throw new PatchError(`cannot move ${op.from} into itself`);
      const value = get(box, need(op, 'from'));
      remove(box, op.from);
      return add(box, op.path, value);
    }
    case 'copy': return add(box, op.path, structuredClone(get(box, need(op, 'from'))));
    case 'test':
      if (!deepEqual(get(box, op.path), need(op, 'value'))) throw new PatchError(`test failed at "${op.path}"`);
      return;
    default: throw new PatchError(`unknown op ${JSON.stringify(op?.op)}`);
  }
}

function need(op, key) {
  if (!(key in op)) throw new PatchError(`"${op.op}" needs "${key}"`);
  return op[key];
}

/** Splits a JSON Pointer into its parent container and last key, relative to the box. */
function locate(box, pointer) {
  if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/'))) {
    throw new PatchError(`bad pointer ${JSON.stringify(pointer)}`);
  }
  // "~1" must be decoded before "~0" so that "~01" stays "~1" (RFC 6901 §4).
  const tokens = pointer === '' ? [] : pointer.slice(1).split('/').map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  let parent = box;
  let key = 'root';
  for (const token of tokens) {
    parent = child(parent, key, pointer);
    key = token;
  }
  return { parent, key };
}

function child(container, key, pointer) {
  const value = Array.isArray(container) ? container[index(container, key, false)] : own(container, key);
  if (value === null || typeof value !== 'object') throw new PatchError(`no container at "${pointer}"`);
  return value;
}

function own(object, key) {
  if (!Object.hasOwn(object, key)) throw new PatchError(`missing member "${key}"`);
  return object[key];
}

function index(array, key, forInsert) {
  if (forInsert && key === '-') return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(key)) throw new PatchError(`bad array index "${key}"`);
  const i = Number(key);
  if (i > array.length || (!forInsert && i === array.length)) throw new PatchError(`index ${i} out of range`);
  return i;
}

function get(box, pointer) {
  const { parent, key } = locate(box, pointer);
  return Array.isArray(parent) ? parent[index(parent, key, false)] : own(parent, key);
}

function add(box, pointer, value) {
  const { parent, key } = locate(box, pointer);
  if (Array.isArray(parent)) parent.splice(index(parent, key, true), 0, value);
  else parent[key] = value;
}

function remove(box, pointer) {
  const { parent, key } = locate(box, pointer);
  if (Array.isArray(parent)) parent.splice(index(parent, key, false), 1);
  else {
    own(parent, key);
    delete parent[key];
  }
}

/** Structural equality of JSON values (object key order does not matter). */
export function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}
