#!/usr/bin/env node
// Prints docs/configuration.md from the configuration schema (build libs/config first):
//   node scripts/gen-config-doc.js > docs/configuration.md
const { renderConfigDoc } = require('../libs/config/dist');

process.stdout.write(renderConfigDoc());
