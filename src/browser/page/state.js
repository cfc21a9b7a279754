// What the in-page script keeps between calls: the indexed elements of the last extraction, the
// iframes it entered, the control an input action is filling, and how many popups the page opened.
// Part of the in-page script.

export const state = { els: [null], frames: {}, target: null, popups: 0 };

// Counts window.open calls, so a click that opens a tab from script is waited for like a
// target=_blank link (the new page can take a while to be announced).
const nativeOpen = window.open;
window.open = function open(...args) {
  state.popups++;
  return nativeOpen.apply(this, args);
};
