// The floors' work per step (crates/e2e/src/frames.rs), shared by frame-floor.html and
// frame-floor-wide.html: the chart's SVG of 70 rectangles redrawn whole through innerHTML, as a
// chart drawn to a string would, and the total written. The chart element says how wide the
// SVG's view is (data-view), how far apart the rectangles stand (data-step) and whether the SVG
// stretches to its box (data-stretch).
const slider = document.getElementById('s');
const chart = document.getElementById('chart');
function draw() {
  const v = Number(slider.value);
  const step = Number(chart.dataset.step);
  let rects = '';
  for (let i = 0; i < 70; i++) {
    const h = 20 + ((v * (i + 7)) % 300);
    rects += `<rect x="${i * step}" y="${340 - h}" width="${step - 2}" height="${h}" fill="hsl(${(i * 37) % 360} 60% 55%)"/>`;
  }
  const stretch = 'stretch' in chart.dataset ? ' preserveAspectRatio="none"' : '';
  chart.innerHTML = `<svg viewBox="${chart.dataset.view}"${stretch}>${rects}</svg>`;
  document.getElementById('total').textContent = String(v * 3);
}
slider.addEventListener('input', draw);
draw();
