// Chat card (the `chat` view model): chat/join, chat/post and chat/leave go up;
// other sessions' posts come back down as changes of this session's own view.

import { byId, h, setText } from '../dom.js';

export function mountChat(dispatch) {
  const joinForm = byId('chat-join-form');
  const room = byId('chat-room');
  const name = byId('chat-name');
  const bar = byId('chat-room-bar');
  const roomName = byId('chat-room-name');
  const list = byId('chat-messages');
  const postForm = byId('chat-post-form');
  const text = byId('chat-text');
  const message = byId('chat-message');

  // No `required` or `maxlength`: the server's middleware is the judge, and says why.
  const send = async (type, payload) => {
    setText(message, '');
    const outcome = await dispatch(type, payload, { quiet: true });
    setText(message, outcome.blocked ?? outcome.error ?? '');
    return !outcome.blocked && !outcome.error;
  };
  joinForm.addEventListener('submit', (event) => {
    event.preventDefault();
    send('chat/join', { room: room.value.trim(), name: name.value.trim() });
  });
  postForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (await send('chat/post', { text: text.value })) text.value = '';
  });
  byId('btn-chat-leave').addEventListener('click', () => send('chat/leave'));

  let shown = null;
  return (views) => {
    const chat = views.chat ?? { room: null, messages: [] };
    const key = JSON.stringify(chat);
    if (key === shown) return;
    shown = key;
    const joined = chat.room !== null && chat.room !== undefined;
    joinForm.hidden = joined;
    bar.hidden = !joined;
    postForm.hidden = !joined;
    setText(roomName, chat.room ?? '');
    list.replaceChildren(
      ...(chat.messages ?? []).map((line) => h('li', {}, h('strong', {}, line.from), ': ', line.text)),
    );
    list.scrollTop = list.scrollHeight;
  };
}
