// Draws a run page's plots with dygraphs and applies the coordinator's live updates (server-
// sent events) to its numbers, plots, workers' and leases' tables in place. The page reads without
// this script.
(function () {
    "use strict";
    const run = document.getElementById("run");
    if (!run) return;

    // Returns the JSON data embedded in the page under that id, or an empty list.
    function embedded(id) {
        const node = document.getElementById(id);
        return node ? JSON.parse(node.textContent) : [];
    }

    const llrData = embedded("llr-data");
    const eloData = embedded("elo-data");
    const plots = {};
    const llrNode = document.getElementById("llr-plot");
    if (llrNode && typeof Dygraph !== "undefined") {
        llrNode.textContent = "";
        plots.llr = new Dygraph(llrNode, llrData, {
            labels: ["games", "LLR", "lower bound", "upper bound"],
            xlabel: "games", ylabel: "LLR", colors: ["#1f5fa8", "#c8372d", "#2e9d4d"],
            series: { "lower bound": { strokePattern: Dygraph.DASHED_LINE },
                      "upper bound": { strokePattern: Dygraph.DASHED_LINE } },
            legend: "follow", animatedZooms: true,
            drawCallback: function () { llrNode.dataset.drawn = "true"; }
        });
    }
    const eloNode = document.getElementById("elo-plot");
    // Draws the Elo plot once there is a point to draw, then redraws it with new points.
    function drawElo() {
        if (!eloNode || typeof Dygraph === "undefined" || eloData.length === 0) return;
        if (plots.elo) return plots.elo.updateOptions({ file: eloData });
        eloNode.textContent = "";
        plots.elo = new Dygraph(eloNode, eloData, {
            labels: ["games", "Elo"], customBars: true, xlabel: "games",
            ylabel: "Elo", colors: ["#1f5fa8"], legend: "follow",
            drawCallback: function () { eloNode.dataset.drawn = "true"; }
        });
    }
    drawElo();

    // Tuning runs: every parameter against games, as values or as its change over its c.
    const tuneNode = document.getElementById("tune-plot");
    const tuneData = document.getElementById("tune-data") ? embedded("tune-data") : null;
    if (tuneNode && tuneData && typeof Dygraph !== "undefined" && tuneData.raw.length > 0) {
        tuneNode.textContent = "";
        plots.tune = new Dygraph(tuneNode, tuneData.raw, {
            labels: ["games"].concat(tuneData.names), xlabel: "games", ylabel: "value",
            // Every line named under the plot at all times; the values at the mouse there too.
            legend: "always", labelsDiv: document.getElementById("tune-legend"),
            drawCallback: function () { tuneNode.dataset.drawn = "true"; }
        });
        document.querySelectorAll('input[name="tune-scale"]').forEach(function (input) {
            input.addEventListener("change", function () {
                const share = input.value === "share" && input.checked;
                plots.tune.updateOptions({ file: share ? tuneData.share : tuneData.raw,
                                           ylabel: share ? "change / c" : "value" });
            });
        });
    }
    // Training runs: the loss after each epoch.
    const lossNode = document.getElementById("loss-plot");
    const lossData = embedded("loss-data");
    if (lossNode && typeof Dygraph !== "undefined" && lossData.length > 0) {
        lossNode.textContent = "";
        plots.loss = new Dygraph(lossNode, lossData, {
            labels: ["epoch", "loss"], xlabel: "epoch", ylabel: "loss", legend: "follow",
            drawCallback: function () { lossNode.dataset.drawn = "true"; }
        });
    }

    if (run.dataset.active !== "true" || typeof EventSource === "undefined") return;
    const source = new EventSource("/runs/" + run.dataset.run + "/events");
    source.onmessage = function (event) {
        const update = JSON.parse(event.data);
        run.dataset.updates = String(Number(run.dataset.updates || 0) + 1);
        for (const [name, text] of Object.entries(update.fields)) {
            document.querySelectorAll('[data-field="' + name + '"]').forEach(function (node) {
                node.textContent = text;
            });
        }
        const last = llrData.length ? llrData[llrData.length - 1][0] : -1;
        if (update.llr && update.llr[0] > last) {
            llrData.push(update.llr);
            if (plots.llr) plots.llr.updateOptions({ file: llrData });
        }
        if (update.elo && (!eloData.length || update.elo[0] > eloData[eloData.length - 1][0])) {
            eloData.push(update.elo);
            drawElo();
        }
        // Rendered and escaped by the server, like the page itself.
        const workers = document.getElementById("workers");
        if (workers && typeof update.workers === "string") workers.innerHTML = update.workers;
        const leases = document.getElementById("leases");
        if (leases && typeof update.leases === "string") leases.innerHTML = update.leases;
        if (!update.active) {
            run.dataset.active = "false";
            // An ended test has no forecast: its rows go with it.
            document.querySelectorAll('[data-field^="forecast_"]').forEach(function (node) {
                const tr = node.closest("tr");
                if (tr) tr.remove();
            });
            source.close();
        }
    };
})();
