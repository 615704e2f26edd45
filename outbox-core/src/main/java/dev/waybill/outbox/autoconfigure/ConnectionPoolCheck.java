package dev.waybill.outbox.autoconfigure;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadata;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadataProvider;
import org.springframework.util.ClassUtils;

/**
 * Checks the maximum size of the connection pool the relay and its {@code LISTEN} connection draw
 * from, as Spring Boot's pool metadata reports it (HikariCP, Tomcat, DBCP2, Oracle UCP).
 * <p>
 * The {@code LISTEN} connection is borrowed from the pool for as long as the application runs. In
 * a pool of one connection nothing else ever gets one: every relay worker, consumer thread and the
 * retention worker would wait on the pool for good, logged as "database unavailable" while the
 * database is fine. That fails start-up. A pool smaller than the relay's own
 * need (its workers, the {@code LISTEN} connection and its bookkeeping thread) works, but its
 * settler and lease renewer queue behind every other borrower (a pool of two with four workers under
 * load loses the lease of nearly every scope, which is then published twice). That is a warning at
 * start-up.
 */
final class ConnectionPoolCheck {

	private static final Log logger = LogFactory.getLog(ConnectionPoolCheck.class);

	private static final String METADATA_PROVIDER = "org.springframework.boot.jdbc.metadata.DataSourcePoolMetadataProvider";

	private ConnectionPoolCheck() {
	}

	/**
	 * Checks the pool the listener borrows from, when Spring Boot can tell its maximum size.
	 * @param dataSource the DataSource of the {@code LISTEN} connection and the relay
	 * @param beanFactory where the pool metadata providers are
	 * @param relayWorkers {@code waybill.outbox.relay.workers}
	 * @throws IllegalStateException when the pool has at most one connection
	 */
	static void check(DataSource dataSource, ConfigurableListableBeanFactory beanFactory, int relayWorkers) {
		if (!ClassUtils.isPresent(METADATA_PROVIDER, ConnectionPoolCheck.class.getClassLoader())) {
			return;
		}
		Integer max = Metadata.maximumSize(dataSource, beanFactory.getBeanProvider(DataSourcePoolMetadataProvider.class));
		if (max == null || max < 0) {
			return; // not known, or unbounded
		}
		int need = relayWorkers + 2;
		if (max <= 1) {
			throw new IllegalStateException("Waybill's relay cannot run with a connection pool of at most " + max
					+ " connection: its PostgreSQL LISTEN connection holds one for as long as the application runs, "
					+ "so nothing else (relay, consumers, @Outbox transactions) would ever get one. Raise "
					+ "spring.datasource.hikari.maximum-pool-size (or your pool's maximum) to at least " + need
					+ " plus one per consumer thread (waybill.inbox.concurrency) and what the application uses itself, "
					+ "or turn the relay off on this instance (" + WaybillRelayAutoConfiguration.ENABLED_PROPERTY
					+ "=false).");
		}
		if (max < need) {
			logger.warn("Waybill's relay needs " + need + " pooled connections of its own ("
					+ "waybill.outbox.relay.workers=" + relayWorkers + ", one for its PostgreSQL LISTEN connection, one "
					+ "for recording outcomes and renewing leases), but the connection pool holds at most " + max
					+ ": under load the relay falls behind recording what it published, loses leases and publishes "
					+ "those scopes again. Raise spring.datasource.hikari.maximum-pool-size (or your pool's maximum) "
					+ "to at least " + need + " plus one per consumer thread (waybill.inbox.concurrency) and what the "
					+ "application uses itself.");
		}
	}

	/** Kept apart so that nothing loads Spring Boot's JDBC classes when they are absent. */
	private static final class Metadata {

		static Integer maximumSize(DataSource dataSource, ObjectProvider<DataSourcePoolMetadataProvider> providers) {
			for (DataSourcePoolMetadataProvider provider : providers.orderedStream().toList()) {
				try {
					DataSourcePoolMetadata metadata = provider.getDataSourcePoolMetadata(dataSource);
					if (metadata != null) {
						return metadata.getMax();
					}
				}
				catch (RuntimeException ex) {
					return null; // a pool that cannot tell: no check
				}
			}
			return null;
		}

	}

}
