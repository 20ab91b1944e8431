// Tabs, stack breadcrumb, Back and the top screen, all from the `navigation`
// view model. Which screen is on top is the server's decision, never ours.

import { byId, h, setText } from '../dom.js';
import { screenBody, screenKey } from './screens.js';

export function mountNavigation(dispatch) {
  const tabBar = byId('tab-bar');
  const stackList = byId('nav-stack');
  const back = byId('btn-back');
  const screenEl = byId('screen');
  const title = byId('screen-title');
  const body = byId('screen-body');

  back.addEventListener('click', () => dispatch('navigation/pop'));
  byId('btn-pop-root').addEventListener('click', () => dispatch('navigation/popToRoot'));
  byId('btn-show-profile').addEventListener('click', () => dispatch('profile/show'));
  byId('btn-show-modal').addEventListener('click', () =>
    dispatch('navigation/showModal', { screen: { name: 'details', params: { from: 'modal' } } }));
  let top = null;
  byId('btn-push-details').addEventListener('click', () =>
    dispatch('navigation/push', { screen: { name: 'details', params: { from: top?.name ?? 'home' } } }));

  let shownKey = null;
  return (views) => {
    const nav = views.navigation ?? {};
    renderTabs(tabBar, nav.tabs ?? [], dispatch);
    const stack = nav.stack ?? [];
    top = stack.at(-1) ?? null;
    stackList.replaceChildren(
      ...stack.map((screen, i) =>
        h('li', { dataset: { screen: screen.name }, 'aria-current': i === stack.length - 1 ? 'page' : null },
          screen.title ?? screen.name)),
    );
    back.disabled = stack.length <= 1;
    screenEl.dataset.screen = top?.name ?? '';
    const key = top ? screenKey(top, views) : '';
    if (key === shownKey) return;
    shownKey = key;
    setText(title, top ? (top.title ?? top.name) : '');
    body.replaceChildren(...(top ? screenBody(top, views, dispatch, 'screen') : []));
  };
}

/** Updates tab buttons in place when the set of tabs is unchanged, so keyboard focus survives. */
function renderTabs(bar, tabs, dispatch) {
  const ids = tabs.map((tab) => tab.id).join('\u0000');
  if (bar.dataset.ids !== ids) {
    bar.dataset.ids = ids;
    bar.replaceChildren(
      ...tabs.map((tab) => {
        const button = h('button', { type: 'button', id: `tab-${tab.id}`, class: 'tab', dataset: { testid: `tab-${tab.id}`, tab: tab.id } });
        button.addEventListener('click', () => dispatch('navigation/selectTab', { tab: tab.id }));
        return button;
      }),
    );
  }
  tabs.forEach((tab, i) => {
    const button = bar.children[i];
    setText(button, tab.title ?? tab.id);
    if (tab.selected) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  });
}
