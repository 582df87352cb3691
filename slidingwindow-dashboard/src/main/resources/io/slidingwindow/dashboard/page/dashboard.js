// The dashboard page: polls the feed its body names (data-feed) every second and draws it.
// Every text from the server is set with textContent (descriptor values are chosen by
// clients), never parsed as HTML.
(function () {
  "use strict";

  var POLL_MILLIS = 1000;
  var CHART_HEIGHT = 170;
  var COLORS = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#bcbd22", "#7f7f7f",
    "#e377c2"];
  var REFUSED_COLORS = ["#d62728", "#ff7f0e", "#e6550d", "#c51b8a", "#a50f15", "#fd8d3c",
    "#993404", "#dd3497"];

  var charts = {};
  var selectedRule = null;

  function byId(id) {
    return document.getElementById(id);
  }

  function cell(row, text, className) {
    var td = document.createElement("td");
    td.textContent = text;
    if (className) {
      td.className = className;
    }
    row.appendChild(td);
    return td;
  }

  function replaceRows(tbody, rows, columns, emptyText) {
    while (tbody.firstChild) {
      tbody.removeChild(tbody.firstChild);
    }
    if (rows.length === 0) {
      var empty = document.createElement("tr");
      var td = cell(empty, emptyText, "empty");
      td.colSpan = columns;
      tbody.appendChild(empty);
      return;
    }
    rows.forEach(function (values) {
      var tr = document.createElement("tr");
      values.forEach(function (value, i) {
        cell(tr, value.text, value.className);
      });
      tbody.appendChild(tr);
    });
  }

  function nonZero(values) {
    var n = 0;
    for (var i = 0; i < values.length; i++) {
      if (values[i] !== 0) {
        n++;
      }
    }
    return n;
  }

  function width(element) {
    return Math.max(320, element.clientWidth || 0);
  }

  // Draws (or redraws) one chart; creates it anew when its series change. Returns the number of
  // non-zero points drawn.
  function draw(name, element, seconds, lines) {
    var signature = lines.map(function (line) { return line.label; }).join("\u0000");
    var data = [seconds].concat(lines.map(function (line) { return line.values; }));
    var chart = charts[name];
    if (!chart || chart.signature !== signature) {
      if (chart) {
        chart.plot.destroy();
      }
      var options = {
        width: width(element),
        height: CHART_HEIGHT,
        scales: { x: { time: true } },
        axes: [{}, { label: "per second" }],
        series: [{}].concat(lines.map(function (line) {
          return { label: line.label, stroke: line.color, width: 1.5, points: { show: false } };
        })),
        legend: { live: false }
      };
      chart = { signature: signature, plot: new uPlot(options, data, element) };
      charts[name] = chart;
    } else {
      chart.plot.setData(data);
    }
    return lines.reduce(function (sum, line) { return sum + nonZero(line.values); }, 0);
  }

  function domainLines(domains) {
    var lines = [];
    domains.forEach(function (series, i) {
      lines.push({ label: series.domain + " decisions", values: series.decisions,
        color: COLORS[i % COLORS.length] });
      lines.push({ label: series.domain + " refusals", values: series.refusals,
        color: REFUSED_COLORS[i % REFUSED_COLORS.length] });
    });
    return lines;
  }

  function ruleName(series) {
    return series.domain + "/" + (series.rule === "" ? "(no rule)" : series.rule);
  }

  function sum(values) {
    return values.reduce(function (a, b) { return a + b; }, 0);
  }

  function updateRuleSelect(rules) {
    var select = byId("rule-select");
    var names = rules.map(ruleName);
    if (selectedRule === null || names.indexOf(selectedRule) < 0) {
      var busiest = null;
      var most = -1;
      rules.forEach(function (series) {
        var total = sum(series.decisions);
        if (total > most) {
          most = total;
          busiest = ruleName(series);
        }
      });
      selectedRule = busiest;
    }
    var current = Array.prototype.map.call(select.options, function (o) { return o.value; });
    if (current.join("\u0000") !== names.join("\u0000")) {
      while (select.firstChild) {
        select.removeChild(select.firstChild);
      }
      names.forEach(function (name) {
        var option = document.createElement("option");
        option.value = name;
        option.textContent = name;
        select.appendChild(option);
      });
    }
    if (selectedRule !== null) {
      select.value = selectedRule;
    }
  }

  function ruleLines(rules) {
    var chosen = rules.filter(function (series) { return ruleName(series) === selectedRule; });
    if (chosen.length === 0) {
      return [];
    }
    return [
      { label: selectedRule + " decisions", values: chosen[0].decisions, color: COLORS[0] },
      { label: selectedRule + " refusals", values: chosen[0].refusals, color: REFUSED_COLORS[0] }
    ];
  }

  // The last second is still counting, so the charts end at the one before.
  function complete(values) {
    return values.slice(0, -1);
  }

  function render(state) {
    state.seconds = complete(state.seconds);
    state.domains.concat(state.rules).forEach(function (series) {
      series.decisions = complete(series.decisions);
      series.refusals = complete(series.refusals);
    });
    var points = draw("domains", byId("chart-domains"), state.seconds, domainLines(state.domains));
    updateRuleSelect(state.rules);
    points += draw("rules", byId("chart-rules"), state.seconds, ruleLines(state.rules));

    byId("top-window").textContent = String(state.topWindowSeconds);
    replaceRows(byId("top").tBodies[0], state.topRefused.map(function (key) {
      return [{ text: key.domain }, { text: key.rule }, { text: key.descriptor },
        { text: String(key.refusals), className: "num" }];
    }), 4, "nothing refused");

    var rows = [];
    state.config.domains.forEach(function (domain) {
      domain.rules.forEach(function (rule) {
        var limits = rule.limits + (rule.shadowMode ? " (shadow mode)" : "");
        rows.push([{ text: domain.domain }, { text: rule.rule }, { text: limits },
          { text: rule.source }]);
      });
    });
    replaceRows(byId("config").tBodies[0], rows, 4, "no rules");
    byId("config-path").textContent = "from " + state.config.path;
    var error = byId("config-error");
    error.hidden = !state.config.lastReloadError;
    error.textContent = state.config.lastReloadError
      ? "last reload failed: " + state.config.lastReloadError : "";

    var backend = state.backend;
    var health = "backend: " + backend.backend;
    Object.keys(backend).forEach(function (key) {
      if (key !== "backend") {
        health += ", " + key + ": " + String(backend[key]);
      }
    });
    byId("backend").textContent = health;

    var status = byId("status");
    status.textContent = "updated " + new Date().toLocaleTimeString();
    status.className = "status ok";
    document.body.dataset.points = String(points);
    document.body.dataset.draws = String(Number(document.body.dataset.draws || "0") + 1);
    document.body.dataset.updated = String(Date.now());
  }

  // The reason an error answer gives in a JSON body {"error": "..."} (the service's and the
  // endpoint's refusals), or null for any other body.
  function reasonOf(text) {
    try {
      var body = JSON.parse(text);
      return body && typeof body.error === "string" && body.error ? body.error : null;
    } catch (notJson) {
      return null;
    }
  }

  function poll() {
    fetch(document.body.dataset.feed, { cache: "no-store" })
      .then(function (response) {
        if (!response.ok) {
          return response.text().then(function (text) {
            var reason = reasonOf(text);
            var error = new Error("HTTP " + response.status + (reason ? ": " + reason : ""));
            error.refused = reason !== null;
            throw error;
          });
        }
        return response.json();
      })
      .then(render, function (error) {
        // The service did not answer, or refused with a reason, which is shown as it is (as
        // text); a fault of render itself stays an uncaught error.
        var status = byId("status");
        status.textContent = error.refused ? error.message : "no answer: " + error.message;
        status.className = "status stale";
      })
      .finally(function () {
        setTimeout(poll, POLL_MILLIS);
      });
  }

  byId("rule-select").addEventListener("change", function (event) {
    selectedRule = event.target.value;
  });
  window.addEventListener("resize", function () {
    Object.keys(charts).forEach(function (name) {
      var element = byId("chart-" + name);
      charts[name].plot.setSize({ width: width(element), height: CHART_HEIGHT });
    });
  });
  poll();
})();
