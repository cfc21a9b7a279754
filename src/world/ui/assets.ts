import { MONTH_NAMES } from '../../core/dates.ts';

/** Shared stylesheet of the world's sites, inlined into every page by {@link worldStyle}. */
export const WORLD_CSS = `
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f6f7f9}
a{color:var(--accent,#2457d6)}.wrap{max-width:1100px;margin:0 auto;padding:0 16px}
.site-header{background:#fff;border-bottom:1px solid #e3e6ea}.site-header .wrap{display:flex;align-items:center;gap:24px;min-height:56px;flex-wrap:wrap}
.brand{font-weight:700;font-size:20px;text-decoration:none;color:var(--accent)}.site-nav{display:flex;gap:16px}.site-nav a{text-decoration:none;color:#394150}
main.wrap{padding-top:20px;padding-bottom:40px;min-height:70vh}.site-footer{border-top:1px solid #e3e6ea;background:#fff;padding:16px 0;color:#6b7280;font-size:13px}.site-footer a{margin-left:12px}
h1{font-size:24px;margin:8px 0 16px}h2{font-size:19px}.muted{color:#6b7280}.badge{display:inline-block;padding:1px 8px;border-radius:10px;background:#eef2ff;font-size:12px}
.btn{display:inline-block;background:var(--accent,#2457d6);color:#fff;border:0;border-radius:6px;padding:8px 14px;font:inherit;cursor:pointer;text-decoration:none}
.btn:disabled{opacity:.45;cursor:not-allowed}.btn-secondary{background:#e8ebf0;color:#1d2330}.link-btn{background:none;border:0;color:var(--accent);cursor:pointer;font:inherit;text-decoration:underline}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:16px}.card{background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:14px}
.card h3{font-size:16px;margin:0 0 6px}.price{font-weight:700}.rating{color:#b7791f}
.row{display:flex;gap:12px;align-items:center;flex-wrap:wrap}.toolbar{display:flex;gap:12px;align-items:end;flex-wrap:wrap;background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:12px;margin-bottom:16px}
label{display:block;font-size:13px;color:#394150;margin-bottom:4px}input,select,textarea{font:inherit;padding:7px 9px;border:1px solid #c9ced6;border-radius:6px;background:#fff}
.field{margin-bottom:12px}.field.invalid input,.field.invalid select,.field.invalid textarea{border-color:#d22}.error{color:#c00;font-size:13px}.notice{background:#ecfdf3;border:1px solid #9be5b8;padding:10px;border-radius:6px;margin-bottom:12px}
.alert{background:#fff4f4;border:1px solid #f3b4b4;padding:10px;border-radius:6px;margin-bottom:12px}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #e3e6ea;padding:8px;text-align:left}
.pagination{display:flex;gap:6px;margin:18px 0}.page-link{padding:5px 10px;border:1px solid #c9ced6;border-radius:5px;background:#fff;text-decoration:none}.page-link.current{background:var(--accent);color:#fff}
.cookie-banner{position:fixed;left:0;right:0;bottom:0;background:#1d2330;color:#fff;padding:18px 24px;display:flex;gap:20px;align-items:center;justify-content:space-between;z-index:50;min-height:120px}
.cookie-banner p{margin:0;max-width:640px}.cookie-actions{display:flex;gap:10px}
.modal-backdrop{position:fixed;inset:0;background:rgba(15,20,30,.55);display:flex;align-items:center;justify-content:center;z-index:60}
.modal{background:#fff;border-radius:10px;padding:24px;max-width:440px;width:92%;position:relative}.modal-close{position:absolute;right:10px;top:6px;border:0;background:none;font-size:24px;cursor:pointer}
.hidden{display:none!important}.tabs{display:flex;gap:4px;border-bottom:1px solid #c9ced6;margin-bottom:12px}.tabs [role=tab]{border:0;background:none;padding:8px 12px;cursor:pointer;font:inherit}
.tabs [role=tab][aria-selected=true]{border-bottom:3px solid var(--accent);font-weight:600}
.ac-wrap{position:relative}.ac-list{position:absolute;left:0;right:0;top:100%;background:#fff;border:1px solid #c9ced6;border-radius:6px;z-index:20;list-style:none;margin:2px 0;padding:0;max-height:260px;overflow:auto}
.ac-list li{padding:7px 10px;cursor:pointer}.ac-list li:hover{background:#eef2ff}
.dp{position:absolute;background:#fff;border:1px solid #c9ced6;border-radius:8px;padding:8px;z-index:25;width:260px}.dp-grid{display:grid;grid-template-columns:repeat(7,1fr);gap:2px}
.dp-grid button{border:0;background:#f1f3f6;padding:5px 0;border-radius:4px;cursor:pointer;font:inherit;font-size:13px}.dp-head{display:flex;justify-content:space-between;align-items:center;margin-bottom:6px}
.spinner{padding:24px;color:#6b7280}.stars{color:#b7791f}.sidebar{display:grid;grid-template-columns:220px 1fr;gap:20px}.sidebar aside{background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:12px;height:fit-content}
.steps{display:flex;gap:8px;margin-bottom:16px}.steps span{padding:4px 10px;border-radius:12px;background:#e8ebf0;font-size:13px}.steps span.active{background:var(--accent);color:#fff}
`;

/**
 * The shared stylesheet as an inline `<style>` element for a page's head. Pages inline it rather
 * than link it: a linked sheet still loading holds the parser at the next script, and an observation
 * taken then saw every element of the unstyled page at the body's edge, so two runs of one episode
 * could observe the same page differently.
 */
export function worldStyle(): string {
  return `<style>${WORLD_CSS}</style>`;
}

/**
 * Shared client-side behaviour (served at /__assets/world.js): cookie banner and promo modal
 * dismissal (remembered per session on the server), autocomplete that needs a choice, a date
 * picker, tabs, delayed results, and submit buttons enabled by a checkbox.
 */
export const WORLD_JS = `
(function(){
  var site = document.body.getAttribute('data-site');
  function post(path){ try{ fetch(path,{method:'POST',credentials:'same-origin'}); }catch(e){} }
  document.addEventListener('click', function(ev){
    var t = ev.target;
    var ck = t.closest && t.closest('[data-cookie]');
    if (ck){ var b = document.querySelector('.cookie-banner'); if(b) b.remove(); post('/__world/ui?site='+site+'&what=consent'); return; }
    if (t.closest && (t.closest('.modal-close') || t.closest('.modal-dismiss'))){ var m = t.closest('.modal-backdrop'); if(m) m.remove(); post('/__world/ui?site='+site+'&what=promo'); return; }
    var tab = t.closest && t.closest('[role=tab]');
    if (tab){ var list = tab.parentNode; list.querySelectorAll('[role=tab]').forEach(function(x){ x.setAttribute('aria-selected', x===tab?'true':'false'); var p=document.getElementById(x.getAttribute('aria-controls')); if(p) p.classList.toggle('hidden', x!==tab); }); }
  });
  // Autocomplete: typing shows suggestions; the hidden field is only set when one is chosen.
  document.querySelectorAll('input[data-autocomplete]').forEach(function(inp){
    var wrap = inp.parentNode; var list = document.createElement('ul'); list.className='ac-list hidden'; list.setAttribute('role','listbox'); wrap.appendChild(list);
    var hidden = document.getElementById(inp.getAttribute('data-target'));
    var timer = null;
    inp.addEventListener('input', function(){
      if (hidden) hidden.value = '';
      clearTimeout(timer);
      timer = setTimeout(function(){
        var q = inp.value.trim(); if (q.length < 2){ list.classList.add('hidden'); return; }
        fetch(inp.getAttribute('data-autocomplete') + encodeURIComponent(q)).then(function(r){return r.json();}).then(function(items){
          if (inp.value.trim() !== q) return; // a late answer for an older prefix
          list.innerHTML=''; items.slice(0,8).forEach(function(it){ var li=document.createElement('li'); li.setAttribute('role','option'); li.textContent=it.label; li.addEventListener('click', function(){ inp.value = it.label; if(hidden) hidden.value = it.value; list.classList.add('hidden'); inp.dispatchEvent(new Event('change',{bubbles:true})); }); list.appendChild(li); });
          list.classList.toggle('hidden', items.length===0);
        });
      }, 150);
    });
  });
  // Date picker: a calendar of day buttons; the field is read-only so a day must be picked.
  document.querySelectorAll('input[data-datepicker]').forEach(function(inp){
    inp.readOnly = true;
    var min = inp.getAttribute('data-min') || '2027-01-01';
    var cur = new Date((inp.value || min) + 'T00:00:00Z');
    var box = null;
    function render(){
      if (box) box.remove();
      box = document.createElement('div'); box.className='dp'; box.setAttribute('role','dialog'); box.setAttribute('aria-label','Choose date');
      var months=${JSON.stringify(MONTH_NAMES)};
      var y=cur.getUTCFullYear(), m=cur.getUTCMonth();
      var head=document.createElement('div'); head.className='dp-head';
      var prev=document.createElement('button'); prev.type='button'; prev.textContent='<'; prev.setAttribute('aria-label','Previous month');
      var next=document.createElement('button'); next.type='button'; next.textContent='>'; next.setAttribute('aria-label','Next month');
      var title=document.createElement('span'); title.textContent=months[m]+' '+y;
      prev.onclick=function(){ cur=new Date(Date.UTC(y,m-1,1)); render(); }; next.onclick=function(){ cur=new Date(Date.UTC(y,m+1,1)); render(); };
      head.appendChild(prev); head.appendChild(title); head.appendChild(next); box.appendChild(head);
      var grid=document.createElement('div'); grid.className='dp-grid';
      var days=new Date(Date.UTC(y,m+1,0)).getUTCDate();
      for (var d=1; d<=days; d++){ (function(d){ var b=document.createElement('button'); b.type='button'; b.textContent=String(d);
        var iso=y+'-'+String(m+1).padStart(2,'0')+'-'+String(d).padStart(2,'0'); b.setAttribute('aria-label', months[m]+' '+d+', '+y);
        b.onclick=function(){ inp.value=iso; box.remove(); box=null; inp.dispatchEvent(new Event('change',{bubbles:true})); }; grid.appendChild(b); })(d); }
      box.appendChild(grid); inp.parentNode.style.position='relative'; inp.parentNode.appendChild(box);
    }
    inp.addEventListener('click', function(){ if (box){ box.remove(); box=null; } else render(); });
  });
  // Delayed results: content is fetched after a delay, as slow search backends do.
  document.querySelectorAll('[data-delayed-src]').forEach(function(el){
    var ms = parseInt(el.getAttribute('data-delay') || '1200', 10);
    setTimeout(function(){ fetch(el.getAttribute('data-delayed-src'),{credentials:'same-origin'}).then(function(r){return r.text();}).then(function(h){ el.innerHTML = h; el.removeAttribute('aria-busy'); }); }, ms);
  });
  // Submit buttons disabled until a box is ticked.
  document.querySelectorAll('input[type=checkbox][data-enables]').forEach(function(cb){
    var btn = document.getElementById(cb.getAttribute('data-enables'));
    function sync(){ if (btn) btn.disabled = !cb.checked; }
    cb.addEventListener('change', sync); sync();
  });
})();
`;
