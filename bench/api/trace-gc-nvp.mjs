// Loaded into `sextant serve` by bench:promotion with NODE_OPTIONS' --import: NODE_OPTIONS takes no
// V8 tracing flag, but V8 reads this one at every collection, so setting it once running is enough.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--trace-gc-nvp');
