/** A task that may start only once the tasks it names in `after` have finished. */
export interface DependentTask {
  name: string;
  after?: readonly string[];
}

/**
 * Runs each task once, up to `concurrency` at a time. A free slot goes to the first task in the list
 * whose dependencies have finished, so the list's order is the priority; a name in `after` that is not
 * in the list counts as finished (done by an earlier run). After a failure no task starts; the ones
 * running are waited for, then the first failure is thrown.
 */
export async function runDependentTasks<T extends DependentTask>(
  tasks: readonly T[],
  concurrency: number,
  run: (task: T) => Promise<void>,
): Promise<void> {
  const waiting = [...tasks];
  const unfinished = new Set(tasks.map((task) => task.name));
  const running = new Set<Promise<void>>();
  let failure: { reason: unknown } | null = null;
  const start = (task: T) => {
    const started: Promise<void> = run(task)
      .then(
        () => void unfinished.delete(task.name),
        (reason: unknown) => void (failure ??= { reason }),
      )
      .finally(() => running.delete(started));
    running.add(started);
  };
  for (;;) {
    for (let i = 0; failure === null && running.size < concurrency && i < waiting.length;) {
      const task = waiting[i]!;
      if ((task.after ?? []).some((name) => unfinished.has(name))) {
        i += 1;
        continue;
      }
      waiting.splice(i, 1);
      start(task);
    }
    if (running.size === 0) break;
    await Promise.race(running);
  }
  if (failure !== null) throw (failure as { reason: unknown }).reason;
  if (waiting.length > 0) throw new Error(`tasks wait on each other: ${waiting.map((task) => task.name).join(', ')}`);
}
