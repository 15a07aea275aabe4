// Runs before the network is built. Tooltips travel as `tooltip` and become titles here, as
// text (vis-network puts a string title in with innerText). The first drawing is recorded for
// tests and benchmarks: it happens inside the Network constructor, before a listener could be
// added.
(function () {
  var DataSet = vis.DataSet;
  vis.DataSet = function (items, options) {
    (items || []).forEach(function (item) {
      if (typeof item.tooltip === "string") { item.title = item.tooltip; }
    });
    return new DataSet(items, options);
  };
  window.explorerFirstDraw = null;
  var emit = vis.Network.prototype.emit;
  vis.Network.prototype.emit = function (event) {
    if (event === "afterDrawing" && window.explorerFirstDraw === null) {
      window.explorerFirstDraw = performance.now();
    }
    return emit.apply(this, arguments);
  };
})();
