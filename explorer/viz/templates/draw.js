// Draws what the data script declared: nodes, edges and options.
var network = new vis.Network(
  document.getElementById("mynetwork"), { nodes: nodes, edges: edges }, options
);
