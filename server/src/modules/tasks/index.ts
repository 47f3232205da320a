/** The tasks module's public entry (the relay's Midjourney routes import only this). */
export * from './midjourney-task.events';
export * from './midjourney-task.decider';
export * from './midjourney-task.ledger';
export * from './midjourney-task.reader';
export * from './midjourney-task.serializer';
export * from './tasks.module';
export * from './suno-task.events';
export * from './suno-task.decider';
export * from './suno-task.ledger';
export * from './suno-task.reader';
export * from './task-refund';
export * from './suno-task.serializer';
