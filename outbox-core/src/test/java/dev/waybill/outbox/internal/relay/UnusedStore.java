package dev.waybill.outbox.internal.relay;

import java.lang.reflect.Proxy;

import dev.waybill.outbox.spi.OutboxStore;

/**
 * A store for tests of relay pieces that must not touch one: every call fails.
 */
final class UnusedStore {

	private UnusedStore() {
	}

	static OutboxStore create() {
		return (OutboxStore) Proxy.newProxyInstance(OutboxStore.class.getClassLoader(), new Class<?>[] { OutboxStore.class },
				(proxy, method, args) -> {
					throw new UnsupportedOperationException(method.getName());
				});
	}

}
