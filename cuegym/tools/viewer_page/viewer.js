
(function(){
'use strict';
const D = JSON.parse(document.getElementById('doc').textContent);
const G = JSON.parse(document.getElementById('geom').textContent);
const $ = id => document.getElementById(id);
const ballEls = Array.from(document.querySelectorAll('#balls .ball'));
const trailEls = Array.from(document.querySelectorAll('#trails .trail'));
const PALETTE = ['#ffd54a', '#4ac8ff', '#ff7ad9', '#9cff57', '#ff9f43'];
const HOLD = 0.8;  // s of rest at the end of a stroke before the next one starts
const S = {shot: 0, t: 0, playing: false, speed: 1, src: -1, hold: 0, last: null};
const px = (x, y) => [(x + G.border) * G.scale, (G.length + G.border - y) * G.scale];
const fmt = (x, d) => Number(x).toFixed(d);
const deg = a => ((a * 180 / Math.PI) % 360 + 360) % 360;  // a direction in [0, 360) degrees
const player = p => (p === null || p === undefined) ? 'the striker' : D.players[p].name;

function source(){  // the stroke animated: as played (-1) or suggestion k
  const sh = D.shots[S.shot];
  return (S.src >= 0 && sh.suggestions[S.src] && sh.suggestions[S.src].timed) ? sh.suggestions[S.src] : sh;
}
function duration(){ return source().duration || 0; }

function at(path, t){  // [x, y] on a timed path at time t (linear between samples)
  if (path.length === 1 || t <= path[0][0]) return [path[0][1], path[0][2]];
  let lo = 0, hi = path.length - 1;
  if (t >= path[hi][0]) return [path[hi][1], path[hi][2]];
  while (hi - lo > 1){ const m = (lo + hi) >> 1; if (path[m][0] <= t) lo = m; else hi = m; }
  const a = path[lo], b = path[hi], w = (t - a[0]) / ((b[0] - a[0]) || 1);
  return [a[1] + w * (b[1] - a[1]), a[2] + w * (b[2] - a[2])];
}

function scoresAt(){  // the score before the current stroke, or after it once it has ended
  const sh = D.shots[S.shot];
  if (sh.ruling && sh.ruling.scores && S.t >= duration()) return sh.ruling.scores;
  for (let k = S.shot - 1; k >= 0; k--){
    const p = D.shots[k];
    if (p.frame !== sh.frame) break;
    if (p.ruling && p.ruling.scores) return p.ruling.scores;
  }
  return null;
}

function drawBalls(){
  const src = source(), t = S.t;
  ballEls.forEach((el, i) => {
    const p = src.paths[i];
    if (!p || !p.length){ el.setAttribute('visibility', 'hidden'); return; }
    const gone = !src.end_on[i] && t >= p[p.length - 1][0] && duration() > 0;
    const q = at(p, t), c = px(q[0], q[1]);
    el.setAttribute('transform', 'translate(' + fmt(c[0], 2) + ',' + fmt(c[1], 2) + ')');
    el.setAttribute('visibility', gone ? 'hidden' : 'visible');
  });
  const show = $('show-trails').checked;
  trailEls.forEach((el, i) => {
    const p = src.paths[i];
    if (!show || !p || p.length < 2){ el.setAttribute('points', ''); return; }
    const pts = [];
    for (const s of p){ if (s[0] > t) break; pts.push(px(s[1], s[2])); }
    const q = at(p, t); pts.push(px(q[0], q[1]));
    el.setAttribute('points', pts.map(c => fmt(c[0], 1) + ',' + fmt(c[1], 1)).join(' '));
  });
}

function drawSuggestions(){
  const sh = D.shots[S.shot], g = $('sugg');
  let svg = '';
  if ($('show-sugg').checked){
    sh.suggestions.forEach((s, k) => {
      const col = PALETTE[k % PALETTE.length];
      s.paths.forEach((p, i) => {
        if (p.length < 2) return;
        const pts = p.map(v => px(v[v.length - 2], v[v.length - 1])).map(c => fmt(c[0], 1) + ',' + fmt(c[1], 1)).join(' ');
        const w = (s.shot && i === s.shot.cue_ball) ? 2.5 : 1.5;
        svg += '<polyline class="suggestion" data-suggestion="' + k + '" points="' + pts + '" fill="none" stroke="' + col +
               '" stroke-width="' + w + '" stroke-dasharray="6 4" stroke-opacity="0.9"/>';
      });
    });
  }
  g.innerHTML = svg;
}

function el(tag, text, cls){ const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }

function drawScoreboard(){
  const sh = D.shots[S.shot], box = $('scoreboard'), sc = scoresAt() || [0, 0];
  box.textContent = '';
  const tab = el('table');
  [0, 1].forEach(p => {
    const tr = el('tr'); if (sh.player === p) tr.className = 'to-play';
    tr.appendChild(el('td', D.players[p].name)); tr.appendChild(el('td', String(sc[p]), 'score'));
    tab.appendChild(tr);
  });
  box.appendChild(tab);
  const frames = D.shots.filter(s => s.frame !== undefined).length ? (sh.frame + 1) : null;
  box.appendChild(el('div', (frames ? 'frame ' + frames + ' · ' : '') + 'stroke ' + (S.shot + 1) + ' of ' + D.shots.length, 'muted'));
}

function drawStroke(){
  const sh = D.shots[S.shot], box = $('stroke');
  box.textContent = '';
  box.appendChild(el('div', player(sh.player), 'verdict'));
  const s = sh.shot;
  if (s){
    const id = D.balls[s.cue_ball].id;
    box.appendChild(el('div', 'strikes ball ' + id + ': direction ' + fmt(deg(s.phi), 1) + '°, speed ' + fmt(s.speed, 2) +
      ' m/s, tip offset a ' + fmt(s.a, 2) + ' / b ' + fmt(s.b, 2) + ' ball radii, cue elevation ' + fmt(s.theta * 180 / Math.PI, 1) + '°'));
  } else if (sh.choice !== undefined){
    box.appendChild(el('div', 'no stroke: ball ' + sh.choice + ' is chosen'));
  } else {
    box.appendChild(el('div', 'no stroke'));
  }
  if (sh.label) box.appendChild(el('div', sh.label, 'muted'));
  if (sh.note) box.appendChild(el('div', sh.note, 'muted'));
}

function drawRuling(){
  const r = D.shots[S.shot].ruling, box = $('ruling');
  box.textContent = '';
  box.appendChild(el('div', 'Ruling', 'muted'));
  if (!r){ box.appendChild(el('div', D.shots[S.shot].shot ? 'no ruling (no referee for this position)' : 'nothing played')); return; }
  const foulText = r.foul ? 'FOUL' + (r.fouler !== null && r.fouler !== undefined ? ' by ' + player(r.fouler) : '') : 'no foul';
  box.appendChild(el('div', foulText, 'verdict ' + (r.foul ? 'foul' : 'fair')));
  const pts = r.points ? 'points ' + r.points.join(' : ') : '';
  const scs = r.scores ? 'scores ' + r.scores.join(' : ') : '';
  if (pts || scs) box.appendChild(el('div', [pts, scs].filter(Boolean).join(' · ')));
  const ul = el('ul');
  r.clauses.forEach(c => { const li = el('li'); li.appendChild(el('code', c[0])); li.appendChild(document.createTextNode(' ' + c[1])); ul.appendChild(li); });
  if (r.clauses.length) box.appendChild(ul);
  (r.notes || []).forEach(n => box.appendChild(el('div', n, 'muted')));
  if (r.frame_over) box.appendChild(el('div', 'frame over' + (r.winner !== null && r.winner !== undefined ? ': ' + player(r.winner) + ' wins' : ''), 'verdict'));
  else if (r.to_play !== null && r.to_play !== undefined) box.appendChild(el('div', 'next: ' + player(r.to_play) + (r.phase ? ', ' + String(r.phase).replace(/_/g, ' ') : ''), 'muted'));
}

function drawSuggestionList(){
  const sh = D.shots[S.shot], box = $('suggestions'), srcSel = $('source');
  box.textContent = '';
  srcSel.textContent = '';
  const o = el('option', 'as played'); o.value = '-1'; srcSel.appendChild(o);
  if (!sh.suggestions.length){ box.style.display = 'none'; return; }
  box.style.display = '';
  box.appendChild(el('div', 'Suggestions (dashed on the table)', 'muted'));
  const ul = el('ul');
  sh.suggestions.forEach((s, k) => {
    const li = el('li'); const sw = el('span', '', 'swatch'); sw.style.background = PALETTE[k % PALETTE.length];
    li.appendChild(sw);
    let text = s.label;
    if (s.value !== undefined) text += ' · value ' + fmt(s.value, 3);
    if (s.success !== undefined) text += ' · success ' + fmt(100 * s.success, 0) + '%';
    if (s.shot) text += ' · ' + fmt(deg(s.shot.phi), 1) + '°, ' + fmt(s.shot.speed, 2) + ' m/s';
    li.appendChild(document.createTextNode(text));
    if (s.note) li.appendChild(el('div', s.note, 'muted'));
    li.addEventListener('click', () => { $('show-sugg').checked = true; if (s.timed){ S.src = k; srcSel.value = String(k); } S.t = 0; draw(true); });
    ul.appendChild(li);
    if (s.timed){ const so = el('option', s.label); so.value = String(k); srcSel.appendChild(so); }
  });
  box.appendChild(ul);
  srcSel.value = String(S.src);
}

function drawResult(){
  const box = $('result'), r = D.result;
  if (!r){ box.style.display = 'none'; return; }
  box.textContent = '';
  if (r.frames){
    r.frames.forEach(f => box.appendChild(el('div', 'frame ' + (f.frame + 1) + ': ' + f.scores.join(' : ') +
      (f.winner !== null && f.winner !== undefined ? ', ' + player(f.winner) + ' wins' : (f.truncated ? ', cut at ' + f.shots + ' decisions' : '')))));
    if (r.wins) box.appendChild(el('div', 'frames won ' + r.wins.join(' : '), 'muted'));
  } else {
    Object.keys(r).forEach(k => {
      const v = r[k], text = (v && typeof v === 'object') ? (Object.keys(v).length ? JSON.stringify(v) : 'none') : String(v);
      box.appendChild(el('div', k.replace(/_/g, ' ') + ': ' + text));
    });
  }
}

function drawList(){
  const ol = $('list');
  if (!ol.childElementCount){
    D.shots.forEach((sh, k) => {
      const r = sh.ruling;
      const li = el('li', player(sh.player) + (sh.shot ? ', ' + fmt(sh.shot.speed, 1) + ' m/s' : ', no stroke') +
        (r ? (r.foul ? ' · foul' : '') + (r.points ? ' · ' + r.points.join(':') : '') : ''));
      li.addEventListener('click', () => go(k));
      ol.appendChild(li);
    });
  }
  Array.from(ol.children).forEach((li, k) => li.classList.toggle('current', k === S.shot));
}

function drawClock(){
  const d = duration();
  $('scrub').value = String(d > 0 ? Math.round(1000 * Math.min(S.t / d, 1)) : 1000);
  $('clock').textContent = 't ' + fmt(S.t, 2) + ' s of ' + fmt(d, 2) + ' s · speed ×' + S.speed;
  $('play').textContent = S.playing ? 'pause' : 'play';
  document.body.dataset.t = fmt(S.t, 3);
  document.body.dataset.shot = String(S.shot);
  document.body.dataset.playing = S.playing ? '1' : '0';
}

let drawnShot = -1;
function draw(full){
  if (full || drawnShot !== S.shot){
    drawnShot = S.shot;
    drawStroke(); drawRuling(); drawSuggestionList(); drawSuggestions(); drawList();
  }
  drawScoreboard(); drawBalls(); drawClock();
}

function go(k){ S.shot = Math.max(0, Math.min(D.shots.length - 1, k)); S.t = 0; S.hold = 0; S.src = -1; draw(true); }

function tick(){
  const now = performance.now();
  const dt = S.last === null ? 0 : Math.min((now - S.last) / 1000, 0.25);
  S.last = now;
  if (S.playing){
    const d = duration();
    S.t += dt * S.speed;
    if (S.t >= d){
      S.t = d; S.hold += dt;
      if (S.hold >= HOLD){
        if (S.shot + 1 < D.shots.length){ S.shot += 1; S.t = 0; S.hold = 0; S.src = -1; }
        else S.playing = false;
      }
    }
    draw(false);
  }
  setTimeout(tick, 30);
}

$('play').addEventListener('click', () => {
  if (!S.playing && S.shot === D.shots.length - 1 && S.t >= duration()) go(0);
  S.playing = !S.playing; S.hold = 0; draw(false);
});
$('prev').addEventListener('click', () => go(S.t > 0.05 ? S.shot : S.shot - 1));
$('next').addEventListener('click', () => go(S.shot + 1));
$('speed').addEventListener('change', e => { S.speed = Number(e.target.value); draw(false); });
$('scrub').addEventListener('input', e => { S.playing = false; S.t = Number(e.target.value) / 1000 * duration(); draw(false); });
$('show-trails').addEventListener('change', () => draw(false));
$('show-sugg').addEventListener('change', () => draw(true));
$('source').addEventListener('change', e => { S.src = Number(e.target.value); S.t = 0; S.hold = 0; draw(true); });
document.addEventListener('keydown', e => {
  if (e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT') return;
  if (e.key === ' '){ e.preventDefault(); $('play').click(); }
  else if (e.key === 'ArrowLeft') $('prev').click();
  else if (e.key === 'ArrowRight') $('next').click();
});

// start: the URL fragment may set shot, t, paused, suggest, src (e.g. #shot=3&t=1.5&paused=1&suggest=1)
const h = new URLSearchParams(location.hash.replace(/^#/, ''));
S.shot = Math.max(0, Math.min(D.shots.length - 1, parseInt(h.get('shot') || '0', 10) || 0));
if (h.get('suggest') === '1') $('show-sugg').checked = true;
if (h.get('src') !== null){ const k = parseInt(h.get('src'), 10); if (D.shots[S.shot].suggestions[k] && D.shots[S.shot].suggestions[k].timed) S.src = k; }
S.t = Math.max(0, Math.min(duration(), parseFloat(h.get('t') || '0') || 0));
S.playing = h.get('paused') !== '1';
drawResult(); draw(true);
document.body.dataset.ready = '1';
tick();
})();
