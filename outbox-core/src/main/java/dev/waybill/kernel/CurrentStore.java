package dev.waybill.kernel;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The store the work on the current thread belongs to, where Waybill itself knows it: the inbox
 * handles a message of another store's (its {@code waybill-store} header) in that store, so what
 * the handler publishes goes to the same store, ahead of the application's
 * {@code StoreResolver}.
 *
 * @since 0.1
 */
public final class CurrentStore {

	private static final ThreadLocal<@Nullable String> current = new ThreadLocal<>();

	private CurrentStore() {
	}

	/**
	 * Runs work as the given store's.
	 * @param <T> what it returns
	 * @param store the store's name
	 * @param work the work
	 * @return what the work returned
	 */
	public static <T> T during(String store, Supplier<T> work) {
		@Nullable String outer = current.get();
		current.set(store);
		try {
			return work.get();
		}
		finally {
			if (outer != null) {
				current.set(outer);
			}
			else {
				current.remove();
			}
		}
	}

	/**
	 * Returns the store of the current thread's work.
	 * @return its name, or {@literal null} when Waybill does not know it
	 */
	public static @Nullable String name() {
		return current.get();
	}

}
