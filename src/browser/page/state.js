// What the in-page script keeps between calls: the indexed elements of the last extraction, the
// iframes it entered, and the control an input action is filling. Part of the in-page script.

export const state = { els: [null], frames: {}, target: null };
