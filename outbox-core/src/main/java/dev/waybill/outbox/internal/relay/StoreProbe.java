package dev.waybill.outbox.internal.relay;

import java.util.Set;

/**
 * Tells which of the relay's other stores have scopes due, in fewer statements than a claim per
 * store (one per database); the relay's poll of those stores asks it instead of claiming from each.
 *
 * @since 0.1
 */
@FunctionalInterface
public interface StoreProbe {

	/**
	 * Returns the stores with scopes due now.
	 * @param stores the names of the stores to look at
	 * @return those of them with scopes due, and those it could not look at (their claims tell why)
	 */
	Set<String> due(Set<String> stores);

}
