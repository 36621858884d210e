// The checks of tests/tools/report_browser_test.sh, run by headless chromium over the SVG figures
// that the test inlines into one page (each in a <div class="fig" data-name="FILE">). For every
// figure, the box of every <text> element (getBoundingClientRect, relative to its <svg>) must
// have a size, lie inside the viewBox, and not intersect any other text box of the figure. The
// verdict is written into <pre id="verdict">, which the test reads back with --dump-dom.
function check() {
  const problems = [];
  let figures = 0;
  let texts = 0;
  const round = (v) => Math.round(v * 10) / 10;
  const show = (b) => `"${b.text}" [x ${round(b.x)}, y ${round(b.y)}, w ${round(b.w)}, h ${round(b.h)}]`;
  for (const fig of document.querySelectorAll("div.fig")) {
    const name = fig.dataset.name;
    const svg = fig.querySelector("svg");
    if (!svg) {
      problems.push(`${name}: no <svg>`);
      continue;
    }
    ++figures;
    const frame = svg.getBoundingClientRect();
    const view = svg.viewBox.baseVal;
    // The figure is drawn at its own size (width and height equal the viewBox's), so a px of
    // the page is a unit of the viewBox.
    if (Math.abs(frame.width - view.width) > 0.5 || Math.abs(frame.height - view.height) > 0.5) {
      problems.push(`${name}: drawn at ${frame.width} x ${frame.height}, viewBox ${view.width} x ${view.height}`);
    }
    const boxes = [];
    for (const t of svg.querySelectorAll("text")) {
      const text = t.textContent.trim();
      if (text === "") {
        continue;
      }
      ++texts;
      const r = t.getBoundingClientRect();
      const b = {text, x: r.left - frame.left, y: r.top - frame.top, w: r.width, h: r.height};
      if (!(b.w > 0 && b.h > 0)) {
        problems.push(`${name}: no size (no font?): ${show(b)}`);
        continue;
      }
      if (b.x < -0.5 || b.y < -0.5 || b.x + b.w > view.width + 0.5 ||
          b.y + b.h > view.height + 0.5) {
        problems.push(`${name}: outside the viewBox 0 0 ${view.width} ${view.height}: ${show(b)}`);
      }
      boxes.push(b);
    }
    // Two boxes intersect when they overlap on both axes by more than a hair (0.5 px).
    for (let i = 0; i < boxes.length; ++i) {
      for (let j = i + 1; j < boxes.length; ++j) {
        const a = boxes[i];
        const b = boxes[j];
        const dx = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
        const dy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
        if (dx > 0.5 && dy > 0.5) {
          problems.push(`${name}: overlap: ${show(a)} and ${show(b)}`);
        }
      }
    }
  }
  const verdict = document.getElementById("verdict");
  // One line per problem, then the count; each starts a line of its own.
  verdict.textContent = "\n" + problems.map((p) => "problem: " + p + "\n").join("") +
      `checked ${figures} figures, ${texts} texts: ${problems.length} problems\n`;
}
