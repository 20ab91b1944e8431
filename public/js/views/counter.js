// Counter card: shows the `counter` view model, sends counter/* actions.

import { byId, setText } from '../dom.js';

export function mountCounter(dispatch) {
  const value = byId('counter-value');
  const input = byId('counter-input');
  const message = byId('counter-message');

  byId('btn-increase').addEventListener('click', () => dispatch('counter/increase'));
  byId('btn-decrease').addEventListener('click', () => dispatch('counter/decrease'));
  byId('counter-set-form').addEventListener('submit', (event) => {
    event.preventDefault();
    // Only the shape is checked here; what a valid counter is stays the server's call.
    const number = Number(input.value);
    if (input.value.trim() === '' || !Number.isSafeInteger(number)) {
      setText(message, 'Enter a whole number.');
      input.focus();
      return;
    }
    setText(message, '');
    dispatch('counter/set', { value: number });
  });

  return (views) => setText(value, views.counter?.counter ?? '–');
}
