'use strict';

module.exports = function add(a, b) {
  return a + b;
};
