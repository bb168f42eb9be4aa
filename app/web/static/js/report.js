// Draws the per-concern harvest-rate chart with Chart.js from the JSON the page embeds.
(function () {
  var el = document.getElementById("harvest-data");
  var canvas = document.getElementById("harvest-chart");
  if (!el || !canvas || typeof Chart === "undefined") { return; }
  var d = JSON.parse(el.textContent);
  new Chart(canvas, {
    data: {
      labels: d.labels,
      datasets: [
        { type: "bar", label: d.names.fetched, data: d.fetched, yAxisID: "pages",
          backgroundColor: "rgba(101,109,118,0.25)", borderRadius: 3 },
        { type: "bar", label: d.names.matched, data: d.matched, yAxisID: "pages",
          backgroundColor: "rgba(217,72,15,0.55)", borderRadius: 3 },
        { type: "line", label: d.names.harvest, data: d.harvest, yAxisID: "rate",
          borderColor: "#0969da", backgroundColor: "#0969da", tension: 0.25, pointRadius: 3 }
      ]
    },
    options: {
      responsive: true, maintainAspectRatio: false, animation: false,
      interaction: { mode: "index", intersect: false },
      scales: {
        // page counts are whole numbers: no 0.1 steps on a run that fetched nothing
        pages: { position: "left", beginAtZero: true, suggestedMax: 10, ticks: { precision: 0 },
          title: { display: true, text: d.names.pages } },
        rate: { position: "right", beginAtZero: true, suggestedMax: 100,
          grid: { drawOnChartArea: false },
          ticks: { callback: function (v) { return v + "%"; } },
          title: { display: true, text: d.names.harvest } }
      }
    }
  });
  canvas.setAttribute("data-rendered", "1");
})();
// The newest run's cumulative harvest rate against pages fetched.
(function () {
  var el = document.getElementById("run-data");
  var canvas = document.getElementById("run-chart");
  if (!el || !canvas || typeof Chart === "undefined") { return; }
  var d = JSON.parse(el.textContent);
  new Chart(canvas, {
    type: "line",
    data: {
      labels: d.labels,
      datasets: [{ label: d.names.rate, data: d.rate, borderColor: "#d9480f",
        backgroundColor: "rgba(217,72,15,0.12)", fill: true, tension: 0.25, pointRadius: 0 }]
    },
    options: {
      responsive: true, maintainAspectRatio: false, animation: false,
      scales: {
        x: { title: { display: true, text: d.names.pages } },
        y: { beginAtZero: true, suggestedMax: 100, ticks: { callback: function (v) { return v + "%"; } } }
      }
    }
  });
  canvas.setAttribute("data-rendered", "1");
})();
