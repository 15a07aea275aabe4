// explorer serve: draws the neighbourhood of a position with vis-network; clicking a state
// opens its page (an ordinary navigation, so the address changes and the back button works).
(function () {
  "use strict";
  var data = document.getElementById("graph-data");
  var container = document.getElementById("graph");
  if (!data || !container || typeof vis === "undefined") {
    return;
  }
  var graph = JSON.parse(data.textContent);
  // tooltips are plain text: vis-network shows a string title with innerText
  graph.nodes.forEach(function (node) {
    if (typeof node.tooltip === "string") {
      node.title = node.tooltip;
    }
  });
  var nodes = new vis.DataSet(graph.nodes);
  var edges = new vis.DataSet(graph.edges);
  var network = new vis.Network(container, { nodes: nodes, edges: edges }, graph.options);
  network.on("click", function (params) {
    if (params.nodes.length !== 1) {
      return;
    }
    var node = nodes.get(params.nodes[0]);
    if (node && node.url) {
      window.location.assign(node.url);
    }
  });
  network.on("hoverNode", function () {
    container.classList.add("pointing");
  });
  network.on("blurNode", function () {
    container.classList.remove("pointing");
  });
  network.once("afterDrawing", function () {
    window.explorerDrawn = true;
  });
  // for tests and for the curious: where each state is drawn, in page coordinates
  window.explorerNodeAt = function (position) {
    var found = nodes.get({ filter: function (n) { return n.position === position; } });
    if (found.length !== 1) {
      return null;
    }
    var at = network.canvasToDOM(network.getPositions([found[0].id])[found[0].id]);
    var box = container.getBoundingClientRect();
    return { x: box.left + at.x, y: box.top + at.y };
  };
  window.explorerNetwork = network;
})();
