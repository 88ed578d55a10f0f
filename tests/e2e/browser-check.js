// Appended to a copy of a report by browser_check (tests/e2e/lib.sh; the reports themselves
// have no scripts): measures the page in the browser and leaves the figures in the pre element
// with id tbcheck, which chromium --dump-dom prints: the figures, the tables, the verdict
// table's rows as shown, and every flame graph with its frames.
(function () {
	var de = document.documentElement, r = {figures: [], tables: [], verdicts: [],
		flamegraphs: []};
	// The environment's every-field table: found by its summary, whatever its class.
	document.querySelectorAll('details').forEach(function (d) {
		var s = d.querySelector('summary');
		if (s && /Every recorded field/.test(s.textContent))
			r.env_open = r.env_open || d.open;
	});
	// Collapsed sections are opened to measure their tables too.
	document.querySelectorAll('details').forEach(function (d) { d.open = true; });
	r.vw = de.clientWidth;
	var bb = document.body.getBoundingClientRect(), bs = getComputedStyle(document.body);
	r.bodyright = bb.right - parseFloat(bs.paddingRight);
	r.sw = de.scrollWidth;
	document.querySelectorAll('figure').forEach(function (f) {
		var s = f.querySelector('svg'), b = s ? s.getBoundingClientRect() : null;
		r.figures.push({id: f.id, svg: !!s, w: b ? b.width : 0, h: b ? b.height : 0,
			nodes: s ? s.querySelectorAll('*').length : 0,
			failed: !!f.querySelector('.plot-failed')});
	});
	document.querySelectorAll('table').forEach(function (t) {
		var p = t.parentElement, b = t.getBoundingClientRect(), pb = p.getBoundingClientRect();
		r.tables.push({id: t.id || t.className || '', right: b.right, width: b.width,
			scroll: getComputedStyle(p).overflowX === 'auto', pright: pb.right});
	});
	// The verdict table as a reader sees it: each cell's text, and the cost cell's hover text.
	document.querySelectorAll('#verdict-table tbody tr').forEach(function (tr) {
		var td = tr.querySelectorAll('td');
		r.verdicts.push({cells: Array.prototype.map.call(td, function (x) {
			return x.innerText.trim(); }),
			cost_title: td.length > 5 ? td[5].getAttribute('title') : null});
	});
	// Flame graphs: parsed as SVG (their namespace) and every frame laid out.
	document.querySelectorAll('svg.flamegraph').forEach(function (s) {
		var frames = [], b = s.getBoundingClientRect();
		s.querySelectorAll('g.frame').forEach(function (g) {
			var rect = g.querySelector('rect'), rb = rect.getBoundingClientRect();
			frames.push({title: g.querySelector('title').textContent, w: rb.width,
				h: rb.height, fill: rect.getAttribute('fill')});
		});
		r.flamegraphs.push({cls: s.getAttribute('class'), ns: s.namespaceURI, w: b.width,
			h: b.height, frames: frames});
	});
	var pre = document.createElement('pre');
	pre.id = 'tbcheck';
	pre.textContent = JSON.stringify(r);
	document.body.appendChild(pre);
})();
