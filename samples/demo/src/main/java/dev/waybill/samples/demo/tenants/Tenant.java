package dev.waybill.samples.demo.tenants;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The tenant the current thread works for, as a service keeps it for a request (a web filter
 * would set it from the request); the service's {@code StoreResolver} reads it.
 */
final class Tenant {

	private static final ThreadLocal<@Nullable String> current = new ThreadLocal<>();

	private Tenant() {
	}

	static @Nullable String current() {
		return current.get();
	}

	static <T> T as(String tenant, Supplier<T> work) {
		current.set(tenant);
		try {
			return work.get();
		}
		finally {
			current.remove();
		}
	}

}
