// Login card (the `login` and `greeting` view models) and the login form,
// which the modal reuses when its top screen is "login".

import { byId, h, setText } from '../dom.js';

/** A login form whose ids start with `prefix`; a blocked login shows its reason inline. */
export function loginForm(prefix, dispatch) {
  const first = h('input', { id: `${prefix}-first`, name: 'firstName', autocomplete: 'given-name' });
  const last = h('input', { id: `${prefix}-last`, name: 'lastName', autocomplete: 'family-name' });
  const message = h('p', { id: `${prefix}-message`, class: 'message', role: 'alert', dataset: { testid: `${prefix}-message` } });
  // No `required`: empty names go to the server on purpose, its middleware is the judge.
  const form = h(
    'form',
    { id: `${prefix}-form`, class: 'stack-form', novalidate: true },
    h('label', { for: first.id }, 'First name'),
    first,
    h('label', { for: last.id }, 'Last name'),
    last,
    h('button', { type: 'submit', id: `${prefix}-submit` }, 'Log in'),
    message,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    setText(message, '');
    const outcome = await dispatch('user/login', { firstName: first.value.trim(), lastName: last.value.trim() }, { quiet: true });
    setText(message, outcome.blocked ?? outcome.error ?? '');
    if (!outcome.blocked && !outcome.error) form.reset(); // a later logout shows an empty form
  });
  return form;
}

export function mountLogin(dispatch) {
  const greeting = byId('greeting-text');
  const empty = byId('greeting-empty');
  const form = loginForm('login', dispatch);
  const who = byId('login-slot').appendChild(h('p', { id: 'login-who', class: 'muted' }));
  const logout = h('button', { type: 'button', id: 'btn-logout', class: 'ghost' }, 'Log out');
  logout.addEventListener('click', () => dispatch('user/logout'));
  byId('login-slot').append(form, logout);

  return (views) => {
    const login = views.login ?? {};
    const text = views.greeting?.text ?? '';
    setText(greeting, text);
    greeting.hidden = text === '';
    empty.hidden = text !== '';
    const loggedIn = login.loggedIn === true;
    form.hidden = loggedIn;
    logout.hidden = !loggedIn;
    who.hidden = !loggedIn;
    setText(who, loggedIn ? `Logged in as ${login.firstName ?? ''} ${login.lastName ?? ''}`.trim() : '');
  };
}
