// The modal from `navigation.modal`: a native <dialog> opened and closed only
// when the view model says so. Close and Escape ask the server to dismiss it.

import { byId, setText } from '../dom.js';
import { screenBody, screenKey } from './screens.js';

export function mountModal(dispatch) {
  const dialog = byId('modal');
  const title = byId('modal-title');
  const body = byId('modal-body');
  const back = byId('btn-modal-back');
  const dismiss = () => dispatch('navigation/dismissModal');

  byId('btn-modal-close').addEventListener('click', dismiss);
  back.addEventListener('click', () => dispatch('navigation/pop'));
  // Escape fires "cancel": keep the dialog open until the server's answer closes it.
  dialog.addEventListener('cancel', (event) => {
    event.preventDefault();
    dismiss();
  });
  let wanted = false;
  // Chromium may close a dialog despite preventDefault (repeated Escape); tell the server.
  dialog.addEventListener('close', () => {
    if (wanted) dismiss();
  });

  // The first field of a form, else the first button of the screen, else Close.
  const focusFirst = () => (body.querySelector('input, button') ?? byId('btn-modal-close')).focus();

  let shownKey = null;
  return (views) => {
    const stack = views.navigation?.modal?.stack ?? [];
    const top = stack.at(-1);
    wanted = Boolean(top);
    if (!top) {
      shownKey = null;
      if (dialog.open) dialog.close();
      return;
    }
    dialog.dataset.screen = top.name;
    back.hidden = stack.length <= 1;
    const key = screenKey(top, views);
    if (key !== shownKey) {
      shownKey = key;
      const hadFocus = body.contains(document.activeElement);
      setText(title, top.title ?? top.name);
      body.replaceChildren(...screenBody(top, views, dispatch, 'modal'));
      // The focused button may just have been replaced: keep focus inside the dialog.
      if (hadFocus && dialog.open) focusFirst();
    }
    if (!dialog.open) {
      dialog.showModal();
      focusFirst();
    }
  };
}
