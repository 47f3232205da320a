/** The tasks module's public entry (the relay's Midjourney routes import only this). */
export * from './midjourney-task.events';
export * from './midjourney-task.decider';
export * from './midjourney-task.ledger';
export * from './midjourney-task.reader';
export * from './midjourney-task.serializer';
export * from './tasks.module';
