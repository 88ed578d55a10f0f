// Appended to a copy of a report by tests/e2e/t-browser.sh (the reports themselves have no
// scripts): measures the page in the browser and leaves the figures in the pre element
// with id tbcheck, which chromium --dump-dom prints.
(function () {
	var de = document.documentElement, r = {figures: [], tables: []};
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
	var pre = document.createElement('pre');
	pre.id = 'tbcheck';
	pre.textContent = JSON.stringify(r);
	document.body.appendChild(pre);
})();
