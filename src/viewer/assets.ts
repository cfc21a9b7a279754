/**
 * The viewer's static assets, served from memory. The pages work without the script (every step
 * is shown); the script adds one-step-at-a-time browsing, keyboard navigation and auto-submitting
 * filters.
 */

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f3a8a"/><rect x="3" y="4" width="10" height="8" fill="none" stroke="#fbbf24" stroke-width="2"/></svg>`;

export const APP_CSS = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;background:#f7f8fa}
a{color:#2457d6;text-decoration:none}a:hover{text-decoration:underline}
header.top{display:flex;gap:18px;align-items:center;padding:8px 20px;background:#1f2937;color:#e5e7eb;position:sticky;top:0;z-index:10}
header.top .brand{font-weight:700;color:#fbbf24}header.top .run{color:#9ca3af;font-family:ui-monospace,monospace}
header.top nav{display:flex;gap:4px;margin-left:auto}header.top nav a{color:#e5e7eb;padding:4px 10px;border-radius:4px}
header.top nav a.active,header.top nav a:hover{background:#374151;text-decoration:none}
main{max-width:1440px;margin:0 auto;padding:16px 20px 60px}
h1{font-size:20px;margin:8px 0 12px}h2{font-size:16px;margin:22px 0 8px}h3{font-size:14px;margin:14px 0 6px}
table{border-collapse:collapse;background:#fff;margin:8px 0;font-size:13px}
th,td{border:1px solid #dde1e6;padding:4px 8px;text-align:left;vertical-align:top}th{background:#eef0f3;font-weight:600}
tbody tr:hover{background:#f3f6fd}
.muted{color:#6b7280}.mono{font-family:ui-monospace,monospace;font-size:12px}
.badge{display:inline-block;min-width:18px;padding:0 4px;margin-right:2px;border-radius:3px;text-align:center;font-weight:700;font-size:12px}
.badge.ok{background:#dcfce7;color:#166534}.badge.bad{background:#fee2e2;color:#991b1b}.badge.none{background:#e5e7eb;color:#374151}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
.card{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:10px 14px;min-width:130px}
.card b{display:block;font-size:22px}.card a{display:block}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0}dl.kv dt{color:#6b7280}dl.kv dd{margin:0;word-break:break-word}
pre{background:#f1f3f6;border:1px solid #e2e5ea;padding:8px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-word;font-size:12px;margin:6px 0}
details>summary{cursor:pointer;color:#374151;margin:4px 0}
.warn{background:#fff7ed;border:1px solid #fdba74;padding:8px 12px;border-radius:6px;margin:10px 0}
.notes{background:#fefce8;border:1px solid #facc15;border-left:5px solid #eab308;padding:8px 12px;border-radius:4px;margin:8px 0}
.notes h3{margin:0 0 4px;font-size:13px}.notes .stripped{color:#92400e;font-weight:600}
.notes ol{margin:4px 0;padding-left:20px}.notes li{white-space:pre-wrap}
form.filters{display:flex;gap:12px;align-items:end;flex-wrap:wrap;margin:8px 0}form.filters label{display:flex;flex-direction:column;font-size:12px;color:#4b5563}
.attempt-nav{display:flex;gap:14px;align-items:center;margin:6px 0}
.chips{display:flex;flex-wrap:wrap;gap:4px;margin:10px 0}
.chip{display:inline-block;padding:2px 8px;border:1px solid #cbd2db;border-radius:12px;background:#fff;font-size:12px;color:#1d2330}
.chip.err{border-color:#dc2626;color:#991b1b}.chip.current{background:#2457d6;border-color:#2457d6;color:#fff}
section.step{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:16px;background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:12px;margin:10px 0}
body.js section.step{display:none}body.js section.step.current,body.js.show-all section.step{display:grid}
body.js.show-all section.step.current{outline:2px solid #2457d6}
section.step h2{margin:0 0 6px}
.shot{position:relative;display:block;width:100%;max-width:1024px;line-height:0;border:1px solid #cbd2db;background:#fff}
.shot img{display:block;width:100%;height:auto}
.box{position:absolute;border:3px solid #e11d48;box-shadow:0 0 0 2px rgba(255,255,255,.85),0 0 10px rgba(225,29,72,.6);pointer-events:none}
.box.success{border-color:#16a34a;box-shadow:0 0 0 2px rgba(255,255,255,.85),0 0 10px rgba(22,163,74,.6)}
.box.clipped{border-style:dashed}
.box::after{content:attr(data-label);position:absolute;left:-3px;top:-19px;background:#e11d48;color:#fff;font:600 11px/16px system-ui,sans-serif;padding:0 5px;border-radius:3px 3px 0 0;white-space:nowrap}
.box.success::after{background:#16a34a}
.caption{font-size:12px;color:#4b5563;margin:4px 0}
.textview .acted{background:#fde68a;display:inline-block;width:100%}
.error{color:#b91c1c;font-weight:600}
.out dt{font-weight:600;color:#374151}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:16px}
.side{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:12px}
.side.success{border-top:4px solid #16a34a}.side.failure{border-top:4px solid #e11d48}
.bar{display:inline-block;height:10px;background:#2457d6;border-radius:2px;vertical-align:middle;margin-right:6px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:12px;margin:8px 0}
.charts svg{background:#fff;border:1px solid #dde1e6;border-radius:6px;width:100%;height:auto}
.charts.small{grid-template-columns:repeat(auto-fill,minmax(360px,1fr))}
.keys{color:#6b7280;font-size:12px;margin-top:20px}kbd{border:1px solid #cbd2db;border-bottom-width:2px;border-radius:3px;padding:0 4px;background:#fff;font-size:11px}
`;

export const APP_JS = `(() => {
  'use strict';
  const body = document.body;
  body.classList.add('js');
  const typing = (e) => {
    const t = e.target;
    return !!t && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName));
  };
  const follow = (nav) => {
    const a = document.querySelector('a[data-nav="' + nav + '"]');
    if (a && a.href) location.href = a.href;
  };
  for (const s of document.querySelectorAll('form.filters select')) s.addEventListener('change', () => s.form.submit());

  const steps = Array.from(document.querySelectorAll('section.step'));
  const chips = Array.from(document.querySelectorAll('.chips a.chip'));
  const pos = document.getElementById('step-pos');
  let cur = 0;
  const show = (i) => {
    if (!steps.length) return;
    cur = Math.max(0, Math.min(steps.length - 1, i));
    steps.forEach((s, j) => s.classList.toggle('current', j === cur));
    chips.forEach((c, j) => c.classList.toggle('current', j === cur));
    const id = steps[cur].id;
    if (location.hash !== '#' + id) history.replaceState(null, '', '#' + id);
    if (pos) pos.textContent = 'step ' + (cur + 1) + ' of ' + steps.length;
    if (body.classList.contains('show-all')) steps[cur].scrollIntoView({ block: 'start' });
  };
  const fromHash = () => Math.max(0, steps.findIndex((s) => '#' + s.id === location.hash));
  if (steps.length) {
    show(fromHash());
    window.addEventListener('hashchange', () => show(fromHash()));
  }

  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e)) return;
    const k = e.key;
    let handled = true;
    if (k === ']' || k === 'n' || (e.shiftKey && k === 'ArrowRight')) follow('next');
    else if (k === '[' || k === 'p' || (e.shiftKey && k === 'ArrowLeft')) follow('prev');
    else if (k === 'u') follow('up');
    else if (k === 'ArrowRight' || k === 'j') steps.length ? show(cur + 1) : follow('next');
    else if (k === 'ArrowLeft' || k === 'k') steps.length ? show(cur - 1) : follow('prev');
    else if (k === 'Home' && steps.length) show(0);
    else if (k === 'End' && steps.length) show(steps.length - 1);
    else if (k === 'a' && steps.length) {
      body.classList.toggle('show-all');
      show(cur);
    } else handled = false;
    if (handled) e.preventDefault();
  });
})();
`;
