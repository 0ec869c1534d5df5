"""The page overlay's browser side (see :mod:`workbench.ui.overlay.element` for the contract).

``CSS`` styles the boxes, tags and legend; ``JS`` is the components-v2 module that draws them,
sends selections and arrow keys back, places label tags where they hide nothing
(``layoutTags``) and scrolls the selected region's text level with its box (``alignBlock``).
Region text only ever reaches the DOM through ``textContent`` and ``title``.
"""

CSS = """
.wb-scroll { overflow: auto; border: 1px solid #d0d4da; border-radius: 4px; }
.wb-scroll.zoomed { max-height: 82vh; }
.wb-ov { position: relative; width: calc(var(--z, 1) * 100%); line-height: 0;
  user-select: none; }
/* Fit height: the whole page within the window's height, centred in its column. */
.wb-ov.fit-h { width: min(100%, calc((100vh - 7rem) * var(--ar, 0.77))); margin: 0 auto; }
.wb-ov img { width: 100%; height: auto; display: block; }
.wb-box { position: absolute; box-sizing: border-box; border: 1.5px solid var(--c);
  background: color-mix(in srgb, var(--c) 8%, transparent); cursor: pointer;
  transition: background .12s; }
.wb-box:hover { background: color-mix(in srgb, var(--c) 24%, transparent); z-index: 6; }
.wb-box.sel { border-width: 3px; background: color-mix(in srgb, var(--c) 22%, transparent);
  box-shadow: 0 0 0 2px #fff, 0 0 0 4px var(--c); z-index: 5; }
.wb-ov.has-sel .wb-box:not(.sel) { opacity: .55; }
/* Tags would hide the very text they label on dense pages: shown on hover and for the
   selected box; with "all tags" each is placed outside every box and every other tag
   (layoutTags), and one with no free spot is left to hover. */
.wb-tag { position: absolute; left: -1.5px; bottom: 100%; font: 600 10px/1.35 system-ui,
  sans-serif; padding: 0 3px; color: #fff; background: var(--c); border-radius: 3px;
  white-space: nowrap; pointer-events: none; visibility: hidden; z-index: 7; }
.wb-box:hover .wb-tag, .wb-box.sel .wb-tag, .wb-ov.tags-all .wb-tag.placed
  { visibility: visible; }
.wb-box.low .wb-tag { bottom: auto; top: 0; }
.wb-box.lowconf { border-style: dashed; }
.wb-box.lowconf::after { content: "?"; position: absolute; right: 1px; top: 1px;
  font: 700 10px/1 system-ui, sans-serif; color: #fff; background: #c92a2a;
  border-radius: 50%; width: 12px; height: 12px; text-align: center; line-height: 12px; }
.wb-legend { display: flex; flex-wrap: wrap; gap: 4px 10px; margin-top: 6px;
  font: 12px/1.6 system-ui, sans-serif; color: var(--st-text-color, #31333f); }
.wb-legend span.sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px;
  margin-right: 4px; background: var(--c); vertical-align: -1px; }
.wb-legend .off { opacity: .4; text-decoration: line-through; }
.wb-legend .note { color: #6b6f76; }
.wb-box.marked { outline: 3px var(--ms, solid) var(--m); outline-offset: 2px; }
.wb-box.marked .wb-tag { background: var(--m); color: #111; }
.wb-legend span.ow { display: inline-block; width: 14px; height: 9px; margin-right: 4px;
  border: 2.5px var(--ms, solid) var(--m); vertical-align: -1px; }
"""

JS = """
const hit = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

// "All tags": each tag goes to the first free spot (above, below, beside its box, then the
// page margin level with it) that overlaps no box and no placed tag; none free: hover only.
function layoutTags(ov, note) {
  const W = ov.clientWidth, H = ov.clientHeight;
  if (!W || !H) return;
  const boxes = Array.from(ov.querySelectorAll('.wb-box'));
  const rects = boxes.map((b) => ({ x: b.offsetLeft, y: b.offsetTop, w: b.offsetWidth,
    h: b.offsetHeight }));
  const order = boxes.map((_, i) => i)
    .sort((i, j) => Number(boxes[i].dataset.order) - Number(boxes[j].dataset.order));
  const placed = [];
  let left = 0;
  for (const i of order) {
    const b = boxes[i], r = rects[i], tag = b.querySelector('.wb-tag');
    tag.classList.remove('placed');
    tag.style.left = ''; tag.style.top = ''; tag.style.bottom = '';
    const tw = tag.offsetWidth, th = tag.offsetHeight, g = 1;
    const cands = [[r.x, r.y - th - g], [r.x + r.w - tw, r.y - th - g],
      [r.x, r.y + r.h + g], [r.x + r.w - tw, r.y + r.h + g],
      [r.x - tw - g, r.y], [r.x + r.w + g, r.y]];
    for (let y = r.y; y < r.y + Math.max(r.h, th); y += th) {
      cands.push([2, y], [W - tw - 2, y]);
    }
    let spot = null;
    for (const [x, y] of cands) {
      const c = { x, y, w: tw, h: th };
      if (x < 0 || y < 0 || x + tw > W || y + th > H) continue;
      if (rects.some((o) => hit(c, o)) || placed.some((o) => hit(c, o))) continue;
      spot = c; break;
    }
    if (!spot) { left += 1; continue; }
    placed.push(spot);
    tag.style.bottom = 'auto';
    tag.style.left = (spot.x - r.x - b.clientLeft) + 'px';
    tag.style.top = (spot.y - r.y - b.clientTop) + 'px';
    tag.classList.add('placed');
  }
  if (note) note.textContent = left ? left + ' tag(s) on hover only (no free spot)' : '';
}

// The selected block's scroll box moves so the block's top is level with its box's top.
function alignBlock(el, box) {
  let sp = null;
  for (let p = el.parentElement; p; p = p.parentElement) {
    const oy = getComputedStyle(p).overflowY;
    const scrolls = oy === 'auto' || oy === 'scroll';
    if (scrolls && p.scrollHeight > p.clientHeight + 1) { sp = p; break; }
  }
  if (!sp || !box) { el.scrollIntoView({ block: 'nearest', behavior: 'smooth' }); return; }
  const area = sp.getBoundingClientRect();
  // Level with the box, but inside the part of the scroll box the window shows: a box low on
  // a tall page put its block below the fold at 1000 px.
  const bottom = Math.min(area.bottom, window.innerHeight);
  const room = Math.max(bottom - area.top - Math.min(el.offsetHeight, area.height), 0);
  const target = Math.min(Math.max(box.getBoundingClientRect().top, area.top), area.top + room);
  sp.scrollTop += el.getBoundingClientRect().top - target;
  const now = el.getBoundingClientRect();
  if (now.top >= window.innerHeight || now.bottom <= 0) {
    el.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }
}

export default function(component) {
  const { data, parentElement, setTriggerValue } = component;
  const d = data || {};
  const host = parentElement;
  let st = host.__wb;
  if (!st) {
    st = host.__wb = { last: null };
    st.onDocClick = (ev) => {
      const cur = host.__wb;
      if (!cur.prefix || !ev.target || !ev.target.closest) return;
      const el = ev.target.closest('[class*="st-key-' + cur.prefix + '"]');
      if (!el) return;
      for (const cls of el.classList) {
        if (cls.startsWith('st-key-' + cur.prefix)) {
          const id = cur.ids[cls.slice(7 + cur.prefix.length)];
          if (id !== undefined) cur.send('select', id);
          return;
        }
      }
    };
    document.addEventListener('click', st.onDocClick, true);
    st.onKey = (ev) => {
      const cur = host.__wb;
      const t = ev.target;
      if (!cur || !cur.keys || ev.altKey || ev.ctrlKey || ev.metaKey) return;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      if (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') {
        ev.preventDefault();
        cur.send('nav', ev.key === 'ArrowRight' ? 1 : -1);
      } else if (ev.key === 'Escape' && cur.selected) {
        cur.send('select', '');
      }
    };
    document.addEventListener('keydown', st.onKey);
  }
  st.keys = !!d.keys;
  st.selected = d.selected || null;
  st.prefix = d.block_prefix || null;
  st.ids = d.block_ids || {};
  st.send = setTriggerValue;

  let root = host.querySelector('.wb-root');
  if (!root) { root = document.createElement('div'); root.className = 'wb-root';
    host.appendChild(root); }
  root.textContent = '';
  const zoom = Number(d.zoom) > 1 ? Number(d.zoom) : 1;
  const scroller = document.createElement('div');
  scroller.className = 'wb-scroll' + (zoom > 1 ? ' zoomed' : '');
  const ov = document.createElement('div');
  ov.className = 'wb-ov' + (d.selected ? ' has-sel' : '') + (d.tags ? ' tags-all' : '')
    + (d.fit === 'height' && zoom === 1 ? ' fit-h' : '');
  ov.style.setProperty('--z', String(zoom));
  ov.style.setProperty('--ar', String(d.aspect || 0.77));
  ov.setAttribute('data-testid', 'wb-overlay');
  ov.setAttribute('data-key', d.key || '');
  ov.setAttribute('data-fit', zoom > 1 ? 'zoom' : (d.fit || 'width'));
  const img = document.createElement('img');
  img.alt = d.alt || 'page'; img.draggable = false;
  ov.appendChild(img);
  const visible = new Set(d.visible || []);
  for (const r of d.regions || []) {
    if (!visible.has(r.label)) continue;
    const b = document.createElement('div');
    b.className = 'wb-box' + (r.id === d.selected ? ' sel' : '') + (r.y0 < 2.5 ? ' low' : '')
      + (r.lowconf ? ' lowconf' : '');
    b.style.setProperty('--c', r.color);
    b.style.left = r.x0 + '%'; b.style.top = r.y0 + '%';
    b.style.width = (r.x1 - r.x0) + '%'; b.style.height = (r.y1 - r.y0) + '%';
    b.title = r.tip; b.dataset.region = r.id; b.dataset.label = r.label;
    b.dataset.order = String(r.order);
    if (r.mark) {
      b.classList.add('marked');
      b.style.setProperty('--m', r.mark.color); b.style.setProperty('--ms', r.mark.style);
      b.dataset.mark = r.mark.note;
    }
    const tag = document.createElement('span');
    tag.className = 'wb-tag'; tag.textContent = r.tag;
    b.appendChild(tag);
    b.addEventListener('click', (ev) => {
      ev.stopPropagation();
      setTriggerValue('select', r.id === d.selected ? '' : r.id);
    });
    ov.appendChild(b);
  }
  scroller.appendChild(ov);
  root.appendChild(scroller);
  const lg = document.createElement('div');
  lg.className = 'wb-legend';
  for (const item of d.legend || []) {
    const s = document.createElement('span');
    if (!visible.has(item.label)) s.className = 'off';
    s.style.setProperty('--c', item.color);
    const sw = document.createElement('span'); sw.className = 'sw';
    s.appendChild(sw);
    s.appendChild(document.createTextNode(item.label + ' ' + item.count));
    lg.appendChild(s);
  }
  for (const item of d.outline_legend || []) {
    const s = document.createElement('span');
    s.style.setProperty('--m', item.color); s.style.setProperty('--ms', item.style);
    const sw = document.createElement('span'); sw.className = 'ow';
    s.appendChild(sw);
    s.appendChild(document.createTextNode(item.note + ' ' + item.count));
    lg.appendChild(s);
  }
  if (d.lowconf) {
    const s = document.createElement('span'); s.className = 'note';
    s.textContent = '? = low text confidence: ' + d.lowconf;
    lg.appendChild(s);
  }
  const note = document.createElement('span'); note.className = 'note wb-tagnote';
  lg.appendChild(note);
  root.appendChild(lg);
  if (st.ro) st.ro.disconnect();
  st.ro = null;
  if (d.tags && window.ResizeObserver) {
    st.ro = new ResizeObserver(() => layoutTags(ov, note));
    st.ro.observe(ov);
  }
  const fresh = d.selected && d.selected !== st.last;
  const scroll = !!d.scroll;
  const settled = () => {
    if (d.tags) layoutTags(ov, note);
    if (!fresh) return;
    const box = ov.querySelector('.wb-box.sel');
    if (scroll && st.prefix) {
      const safe = Object.keys(st.ids).find((k) => st.ids[k] === d.selected);
      const el = safe && document.querySelector('.st-key-' + st.prefix + safe);
      if (el) alignBlock(el, box);
    }
    if (zoom > 1 && box) box.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  };
  img.addEventListener('load', () => requestAnimationFrame(settled), { once: true });
  img.src = d.image;
  st.last = d.selected || null;
  return () => {
    document.removeEventListener('click', st.onDocClick, true);
    document.removeEventListener('keydown', st.onKey);
    if (st.ro) st.ro.disconnect();
    host.__wb = null;
  };
}
"""
