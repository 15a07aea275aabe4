// Draws what the data script declared: nodes, edges and options.
var network = new vis.Network(
  document.getElementById("mynetwork"), { nodes: nodes, edges: edges }, options
);
// When the frame changes size, vis-network rescales the view by its own rule, which zooms in
// when the frame only grows taller and cuts off the outer states: fit the drawing again
// instead (once vis-network is done with the resize), as long as the reader has not panned or
// zoomed it.
(function () {
  var moved = false;
  network.on("dragEnd", function () { moved = true; });
  network.on("zoom", function () { moved = true; });
  network.on("resize", function () {
    setTimeout(function () { if (!moved) { network.fit(); } }, 0);
  });
})();
