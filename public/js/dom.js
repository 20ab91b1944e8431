// A tiny element builder, so views never assemble HTML strings (no injection,
// nothing for the CSP to block).

/**
 * h('button', {id: 'x', class: 'primary', onclick: fn, dataset: {testid: 'x'}}, 'Label')
 * Props starting with "on" become listeners; `false`/`null` attributes are omitted.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'class') el.className = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** document.getElementById that fails loudly when the page and the code disagree. */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from index.html`);
  return el;
}

/** Sets text only when it changed, so screen readers don't re-announce live regions. */
export function setText(el, text) {
  const value = String(text ?? '');
  if (el.textContent !== value) el.textContent = value;
}
