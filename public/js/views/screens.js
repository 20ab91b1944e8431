// The body of one navigation screen ({name, title, params}), shared by the
// stack and the modal. Screens only render; every button dispatches.

import { h } from '../dom.js';
import { loginForm } from './login.js';

const blurbs = {
  home: 'The root of the Home tab. Push a details screen, or show the profile.',
  settings: 'The root of the Settings tab. Each tab keeps its own stack on the server.',
  details: 'A details screen. Back pops it off its stack; a modal has a stack of its own.',
};

/** Builds the body of `screen`; `where` ("screen" or "modal") keeps element ids unique. */
export function screenBody(screen, views, dispatch, where) {
  const parts = [];
  if (screen.name === 'login') {
    parts.push(h('p', { class: 'muted' }, 'Log in to see your profile.'), loginForm(`${where}-login`, dispatch));
  } else if (screen.name === 'profile') {
    const login = views.login ?? {};
    parts.push(
      h('p', { id: `${where}-profile-name`, class: 'profile-name' },
        login.loggedIn ? `${login.firstName ?? ''} ${login.lastName ?? ''}`.trim() : 'Not logged in'),
      h('p', { class: 'muted' }, views.greeting?.text || ''),
    );
  } else if (blurbs[screen.name]) {
    parts.push(h('p', {}, blurbs[screen.name]));
  }
  const params = Object.entries(screen.params ?? {});
  if (params.length) {
    parts.push(
      h('dl', { class: 'params', id: `${where}-params` },
        params.flatMap(([key, value]) => [h('dt', {}, key), h('dd', {}, typeof value === 'string' ? value : JSON.stringify(value))])),
    );
  }
  if (where === 'modal' && screen.name !== 'login') {
    // Pushing while a modal is up grows the modal's own stack (the server decides where).
    const push = h('button', { type: 'button', id: 'modal-push-details', class: 'ghost' }, 'Push details here');
    push.addEventListener('click', () =>
      dispatch('navigation/push', { screen: { name: 'details', params: { from: screen.name } } }));
    parts.push(h('div', { class: 'button-row' }, push));
  }
  return parts;
}

/** A key that changes only when the screen itself changes, so forms keep what was typed. */
export function screenKey(screen, views) {
  const extra = screen.name === 'profile' ? JSON.stringify([views.login, views.greeting?.text]) : '';
  return JSON.stringify([screen.name, screen.title, screen.params ?? {}]) + extra;
}
