package dev.waybill.integration.support;

import java.util.ArrayList;
import java.util.List;

/**
 * What a test opened (transports, relays, endpoints, proxies, processes), closed at its end in the
 * reverse order of opening, each whatever the others do: one that fails to close keeps none of the
 * others open.
 */
public final class Resources implements AutoCloseable {

	private final List<AutoCloseable> opened = new ArrayList<>();

	/**
	 * Adds a resource to close.
	 * @param <T> its type
	 * @param resource the resource
	 * @return the resource
	 */
	public synchronized <T extends AutoCloseable> T add(T resource) {
		this.opened.add(resource);
		return resource;
	}

	/**
	 * Closes every resource added, the last added first, ignoring their failures.
	 */
	@Override
	public synchronized void close() {
		for (int i = this.opened.size() - 1; i >= 0; i--) {
			try {
				this.opened.get(i).close();
			}
			catch (Exception ex) {
				// closing the others anyway
			}
		}
		this.opened.clear();
	}

}
