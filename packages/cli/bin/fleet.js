#!/usr/bin/env node
// Committed launcher so package managers can link the `fleet` bin before the build runs.
import '../dist/bin.js';
