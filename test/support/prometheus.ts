/** One sample of Prometheus's text format: the metric's name, its labels, its value. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const line = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a text-format exposition; throws on a line that is neither a comment nor a sample. */
export function parsePrometheus(text: string): PromSample[] {
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const match = line.exec(l);
      if (match === null) throw new Error(`not a Prometheus sample: ${l}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(label)].map(([, k, v]) => [k!, v!.replace(/\\(.)/g, '$1')]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The value of the sample with this name and these labels (among others), undefined when there is none. */
export function sampleValue(samples: readonly PromSample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
