// The detonation room's stand-in for a module a package requires and the room does not
// hold (rooms/behavior.toml; preloaded with NODE_OPTIONS=--require). A detonation runs the
// install hooks with no registry, so a hook that requires one of the package's own
// dependencies would stop at its first require and show nothing of what it does. A bare
// require made from the package's own files (under /work/pkg) that Node cannot resolve gets
// a stand-in — callable, constructible, every property itself, never a thenable — and the
// code goes on. Any other failed require fails as it always does.
'use strict';
const Module = require('module');

const PACKAGE = '/work/pkg/';

function standIn() {
  const target = function () {};
  const proxy = new Proxy(target, {
    get(_t, key) {
      if (key === 'then') return undefined;
      if (key === Symbol.toPrimitive) return () => '';
      if (key === Symbol.iterator) return function* () {};
      if (key === '__esModule') return false;
      return proxy;
    },
    apply() {
      return proxy;
    },
    construct() {
      return proxy;
    },
  });
  return proxy;
}

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  try {
    return resolve.call(this, request, parent, ...rest);
  } catch (e) {
    const from = parent && parent.filename;
    if (e.code !== 'MODULE_NOT_FOUND' || typeof from !== 'string' || !from.startsWith(PACKAGE) ||
        request.startsWith('.') || request.startsWith('/')) {
      throw e;
    }
    const id = '\0batlehub-stand-in:' + request;
    if (!Module._cache[id]) {
      const m = new Module(id, parent);
      m.exports = standIn();
      m.loaded = true;
      Module._cache[id] = m;
    }
    return id;
  }
};
