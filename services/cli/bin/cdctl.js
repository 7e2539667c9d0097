#!/usr/bin/env node
// Installed as `cdctl`; the command itself is compiled to dist/ by the build.
require('../dist/main.js');
