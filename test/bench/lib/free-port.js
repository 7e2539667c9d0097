// A free TCP port on loopback, for the JavaScript benches (bench-lib.sh's free_port for the shell ones).
'use strict';
const net = require('node:net');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

module.exports = { freePort };
