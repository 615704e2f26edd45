package dev.waybill.outbox.store;

import org.jspecify.annotations.Nullable;

/**
 * Names the store the current transaction writes to, where the transaction alone cannot tell:
 * several stores on one {@code DataSource} (schema per tenant), or one
 * {@code AbstractRoutingDataSource} in front of the tenants' databases. Declare it as a bean; it
 * is asked on every publish, on the publishing thread, so it must be cheap (read the tenant the
 * application keeps for the request, e.g. in a {@code ThreadLocal}).
 * <p>
 * The store it names must be one the transaction can write to: its {@code DataSource} is the
 * transaction's, or the transaction's connection is to its database. Otherwise the publish fails
 * with an {@link UnknownStoreException}, so a tenant mix-up is never written.
 *
 * @since 0.1
 */
@FunctionalInterface
public interface StoreResolver {

	/**
	 * Returns the name of the store of the current transaction.
	 * @return the name, or {@literal null} to let the transaction tell (its {@code DataSource} or
	 * its connection's database)
	 */
	@Nullable String currentStore();

}
