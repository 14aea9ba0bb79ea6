// For the serve benchmarks (dashboard_bench.mjs, log_page_bench.mjs): what a page load of a big
// log is timed by, set up before each load of the page. window.shown: the frame after the log's
// last line ("big log end", as world.py's "big" agent and log_page_bench's stand-in end it) is on
// the page; window.longest: the longest task meanwhile (PerformanceObserver "longtask").
export async function watchBigLogEnd(page) {
  await page.evaluateOnNewDocument(() => {
    window.longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.longest = Math.max(window.longest, e.duration);
    }).observe({ type: "longtask" });
    new MutationObserver((records, self) => {
      for (const r of records)
        for (const n of r.addedNodes)
          if (n.nodeType === 1 && n.classList.contains("ln") && n.textContent === "big log end\n") {
            self.disconnect();
            requestAnimationFrame(() => setTimeout(() => { window.shown = performance.now(); }, 0));
            return;
          }
    }).observe(document, { childList: true, subtree: true });
  });
}
