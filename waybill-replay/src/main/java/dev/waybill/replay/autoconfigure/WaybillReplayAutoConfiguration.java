package dev.waybill.replay.autoconfigure;

import java.time.Duration;
import javax.sql.DataSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.StoreTransactions;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration;
import dev.waybill.outbox.store.WaybillStores;
import dev.waybill.replay.internal.JdbcReplays;

/**
 * Provides the {@link dev.waybill.replay.Replays} API and runs the replay worker where
 * {@code waybill.replay.enabled} is not {@code false}.
 *
 * @since 0.1
 */
@AutoConfiguration(after = WaybillAutoConfiguration.class)
@ConditionalOnBean({ DataSource.class, OutboxTables.class, RelayWakeUp.class })
@EnableConfigurationProperties(WaybillReplayProperties.class)
public final class WaybillReplayAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	JdbcReplays waybillReplays(DataSource dataSource, OutboxTables tables,
			ObjectProvider<PlatformTransactionManager> transactionManager, RelayWakeUp wakeUp,
			WaybillReplayProperties properties, ObjectProvider<WaybillThreads> threads,
			ObjectProvider<WaybillStores> stores) {
		Duration poll = properties.getPollInterval();
		if (poll == null || poll.toMillis() < 5) {
			throw new InvalidConfigurationPropertyValueException(WaybillReplayProperties.PREFIX + ".poll-interval", poll,
					"It must be at least 5ms; set a duration such as '1s'.");
		}
		PlatformTransactionManager transactions = transactionManager
			.getIfUnique(() -> new DataSourceTransactionManager(dataSource));
		JdbcReplays replays = new JdbcReplays(dataSource, tables, transactions, wakeUp, poll);
		replays.setWorker(properties.isEnabled());
		replays.setThreads(threads.getIfAvailable(WaybillThreads::platform));
		WaybillStores registered = stores.getIfUnique();
		if (registered != null) {
			StoreTransactions storeTransactions = new StoreTransactions(dataSource, transactions);
			replays.setStores(() -> storeTransactions.others(registered, tables));
		}
		return replays;
	}

}
