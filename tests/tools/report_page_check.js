// The checks of tests/tools/report_page_test.sh, run by headless chromium over a whole HTML report
// (the page tidesim writes, with this script and a <pre id="verdict"> added before </body>).
// When the page has loaded (its images decoded), it measures:
//  - every chart (an <img>): drawn with a width and a height, its SVG decoded;
//  - no two charts overlap, and no chart overlaps a heading, a table or a line of text;
//  - inside each chart's SVG (parsed from its data: URI, placed in the page unseen to measure
//    it with getBBox): every bar (rect.bar) and every seed's dot (circle.point, its centre) lies
//    inside the plot area (rect.plot); a chart with bars has a plot area and a bar of some height;
//  - order: the headline charts (h2#headline or h2#sweep, then an <img>) come before the table
//    of every metric, which is last, in a <details id="all-metrics-table"> that starts closed.
// The verdict is written into <pre id="verdict">, which the test reads back with --dump-dom.
function pageCheck() {
  const problems = [];
  const round = (v) => Math.round(v * 10) / 10;
  const box = (r) => `[x ${round(r.x)}, y ${round(r.y)}, w ${round(r.width)}, h ${round(r.height)}]`;
  // Two boxes overlap when they do by more than a hair (0.5 px) on both axes.
  const overlap = (a, b) =>
      Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
      Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  const inside = (r, p) => r.x >= p.x - 0.5 && r.y >= p.y - 0.5 && r.x + r.width <= p.x + p.width + 0.5 &&
      r.y + r.height <= p.y + p.height + 0.5;
  const images = [...document.querySelectorAll("img")];
  const prefix = "data:image/svg+xml;base64,";
  const scratch = document.createElement("div");
  scratch.style.cssText = "position:absolute;left:0;top:0;visibility:hidden";
  document.body.appendChild(scratch);
  let bars = 0;
  let points = 0;
  for (const img of images) {
    const name = img.alt;
    const r = img.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0) || !(img.naturalWidth > 0 && img.naturalHeight > 0)) {
      problems.push(`${name}: no size on the page ${box(r)} (natural ${img.naturalWidth} x ${img.naturalHeight})`);
    }
    if (!img.src.startsWith(prefix)) {
      problems.push(`${name}: not an embedded SVG`);
      continue;
    }
    const bytes = Uint8Array.from(atob(img.src.slice(prefix.length)), (c) => c.charCodeAt(0));
    const doc = new DOMParser().parseFromString(new TextDecoder().decode(bytes), "image/svg+xml");
    if (doc.querySelector("parsererror")) {
      problems.push(`${name}: its SVG does not parse`);
      continue;
    }
    const svg = scratch.appendChild(document.importNode(doc.documentElement, true));
    const plot = svg.querySelector("rect.plot");
    const marks = [...svg.querySelectorAll("rect.bar")];
    bars += marks.length;
    if (marks.length > 0 && !plot) {
      problems.push(`${name}: bars without a plot area`);
    }
    if (plot) {
      const p = plot.getBBox();
      let tallest = 0;
      for (const m of marks) {
        const b = m.getBBox();
        tallest = Math.max(tallest, b.height);
        if (!(b.width > 0) || !inside(b, p)) {
          problems.push(`${name}: a bar ${box(b)} outside the plot area ${box(p)}`);
        }
      }
      if (marks.length > 0 && tallest < 0.5) {
        problems.push(`${name}: every bar has no height (an empty panel)`);
      }
      for (const c of svg.querySelectorAll("circle.point")) {
        ++points;
        const b = c.getBBox();
        const centre = {x: b.x + b.width / 2, y: b.y + b.height / 2, width: 0, height: 0};
        if (!inside(centre, p)) {
          problems.push(`${name}: a seed's dot at ${round(centre.x)}, ${round(centre.y)} outside the plot area ${box(p)}`);
        }
      }
    }
    scratch.removeChild(svg);
  }
  document.body.removeChild(scratch);
  // Charts against each other and against headings, tables and text.
  const rects = images.map((i) => i.getBoundingClientRect());
  for (let i = 0; i < images.length; ++i) {
    for (let j = i + 1; j < images.length; ++j) {
      if (overlap(rects[i], rects[j])) {
        problems.push(`overlap: "${images[i].alt}" ${box(rects[i])} and "${images[j].alt}" ${box(rects[j])}`);
      }
    }
    for (const el of document.querySelectorAll("h1, h2, h3, table, p.not-drawn, summary")) {
      const e = el.getBoundingClientRect();
      if (e.width > 0 && overlap(rects[i], e)) {
        problems.push(`overlap: "${images[i].alt}" ${box(rects[i])} and <${el.tagName.toLowerCase()}> ${box(e)}`);
      }
    }
  }
  // Order: the headline charts first, the table of every metric last and folded.
  const before = (a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  const head = document.querySelector("h2#headline, h2#sweep");
  const details = document.getElementById("all-metrics-table");
  const firstChart = head && images.find((i) => before(head, i));
  if (!head || !firstChart) {
    problems.push("order: no headline chart (h2#headline or h2#sweep, then a chart)");
  }
  if (!details || details.tagName !== "DETAILS" || details.open || !details.querySelector("table")) {
    problems.push("order: the table of every metric is not in a closed <details id=\"all-metrics-table\">");
  } else {
    if (firstChart && !before(firstChart, details)) {
      problems.push("order: the table of every metric comes before the headline charts");
    }
    const later = images.filter((i) => before(details, i));
    if (later.length > 0) {
      problems.push(`order: ${later.length} charts after the table of every metric (first: "${later[0].alt}")`);
    }
    if (firstChart && details.getBoundingClientRect().top < firstChart.getBoundingClientRect().bottom) {
      problems.push("order: the table of every metric is drawn above the first headline chart");
    }
  }
  const verdict = document.getElementById("verdict");
  verdict.textContent = "\n" + problems.map((p) => "problem: " + p + "\n").join("") +
      `checked ${images.length} charts, ${bars} bars, ${points} dots: ${problems.length} problems\n`;
}
window.addEventListener("load", pageCheck);
