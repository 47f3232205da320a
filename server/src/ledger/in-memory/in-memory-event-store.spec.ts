import { describeEventStoreContract } from '../event-store.contract';
import { InMemoryEventStore } from './in-memory-event-store';

describeEventStoreContract('in-memory', async () => {
  const store = new InMemoryEventStore();
  return { store, dispose: () => store.close() };
});
