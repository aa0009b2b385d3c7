// Core's conformance suite, exactly as every backend (ours or third-party) runs it.
import { runConformanceSuite } from '@fleet/core/conformance';
import b200 from '../src/index.js';

runConformanceSuite(b200);
