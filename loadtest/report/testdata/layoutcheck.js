// Layout check of an HTML report, injected by the browser test before
// </body>: every SVG text lies inside its SVG's viewport, no two texts of
// one SVG overlap, the page does not scroll sideways, a y axis's numbers
// rise upward (class ytick) and an axis fitted to its data (data-xmax,
// data-ymax: the data's top) ends within 1.5× of it (class xtick, ytick). The verdict goes
// into a pre element with id layout-verdict, which chromium --dump-dom returns.
(function () {
  var tol = 0.5, problems = [], nText = 0;
  function label(el) { return JSON.stringify((el.textContent || '').trim().slice(0, 50)); }
  function inside(r, v) {
    return r.left >= v.left - tol && r.right <= v.right + tol && r.top >= v.top - tol && r.bottom <= v.bottom + tol;
  }
  function overlap(a, b) {
    return a.left < b.right - tol && b.left < a.right - tol && a.top < b.bottom - tol && b.top < a.bottom - tol;
  }
  var svgs = document.querySelectorAll('svg');
  Array.prototype.forEach.call(svgs, function (svg, si) {
    var v = svg.getBoundingClientRect();
    if (v.width < 1 || v.height < 1) { problems.push('svg ' + si + ' not rendered'); return; }
    var texts = Array.prototype.filter.call(svg.querySelectorAll('text'), function (t) { return t.ownerSVGElement === svg; });
    var rects = texts.map(function (t) { return t.getBoundingClientRect(); });
    texts.forEach(function (t, i) {
      nText++;
      var r = rects[i];
      if (t.textContent.trim() !== '' && (r.width < 1 || r.height < 1)) problems.push('svg ' + si + ': text ' + label(t) + ' not rendered');
      if (!inside(r, v)) problems.push('svg ' + si + ': text ' + label(t) + ' clipped: [' + [r.left, r.top, r.right, r.bottom].map(Math.round) +
        '] outside [' + [v.left, v.top, v.right, v.bottom].map(Math.round) + ']');
      for (var j = 0; j < i; j++) {
        if (overlap(r, rects[j])) problems.push('svg ' + si + ': text ' + label(t) + ' overlaps ' + label(texts[j]));
      }
    });
  });
  function num(t) { var v = parseFloat((t.textContent || '').replace(/[^0-9eE.+-]/g, '')); return isFinite(v) ? v : NaN; }
  function own(svg, sel) { // a panel's ticks, not those of the panels nested in it
    return Array.prototype.filter.call(svg.querySelectorAll(sel), function (t) { return t.ownerSVGElement === svg; });
  }
  Array.prototype.forEach.call(svgs, function (svg, si) {
    var yt = own(svg, 'text.ytick').map(function (t) {
      return { v: num(t), y: t.getBoundingClientRect().top };
    }).filter(function (p) { return !isNaN(p.v); });
    yt.sort(function (a, b) { return a.y - b.y; }); // top to bottom
    for (var i = 1; i < yt.length; i++) {
      if (yt[i].v > yt[i - 1].v) {
        problems.push('svg ' + si + ': y axis inverted: ' + yt[i].v + ' drawn below ' + yt[i - 1].v);
        break;
      }
    }
    ['x', 'y'].forEach(function (ax) {
      var top = parseFloat(svg.getAttribute('data-' + ax + 'max'));
      if (!(top > 0)) return;
      var end = -Infinity;
      own(svg, 'text.' + ax + 'tick').forEach(function (t) {
        var v = num(t);
        if (!isNaN(v)) end = Math.max(end, v);
      });
      if (end > 1.5 * top) problems.push('svg ' + si + ': ' + ax + ' axis runs to ' + end + ', past 1.5× its data\'s ' + top);
    });
  });
  var de = document.documentElement;
  if (de.scrollWidth > window.innerWidth + 1) problems.push('page scrolls sideways: ' + de.scrollWidth + ' > ' + window.innerWidth);
  var out = document.createElement('pre');
  out.id = 'layout-verdict';
  out.textContent = problems.length ? 'FAIL\n' + problems.join('\n') : 'OK ' + svgs.length + ' svgs, ' + nText + ' texts';
  document.body.appendChild(out);
})();
