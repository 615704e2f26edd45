package dev.waybill.schedules.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.StoreTransactions;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.store.WaybillStores;
import dev.waybill.schedules.Schedule;
import dev.waybill.schedules.internal.JdbcScheduler;

/**
 * Fires the schedules declared as {@link Schedule} beans and under {@code waybill.schedules.*}
 * through the outbox, and provides the {@link dev.waybill.schedules.Schedules} API. Every
 * declared schedule is checked at start-up, on every instance.
 *
 * @since 0.1
 */
@AutoConfiguration(after = WaybillAutoConfiguration.class)
@ConditionalOnBean({ DataSource.class, OutboxTables.class, OutboxPublisher.class })
@EnableConfigurationProperties(WaybillSchedulesProperties.class)
public final class WaybillSchedulesAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	JdbcScheduler waybillScheduler(DataSource dataSource, OutboxTables tables,
			ObjectProvider<PlatformTransactionManager> transactionManager, OutboxPublisher publisher,
			ObjectProvider<Schedule> beans, WaybillSchedulesProperties properties, MessageSerializer serializer,
			ConfigurableListableBeanFactory beanFactory, ObjectProvider<WaybillThreads> threads,
			ObjectProvider<WaybillStores> stores) {
		Duration poll = properties.getScheduler().getPollInterval();
		if (poll == null || poll.toMillis() < 5) {
			throw new InvalidConfigurationPropertyValueException("waybill.scheduler.poll-interval", poll,
					"It must be at least 5ms; set a duration such as '1s'.");
		}
		List<Schedule> schedules = new ArrayList<>(beans.orderedStream().toList());
		schedules.addAll(ConfiguredSchedules.build(properties.getSchedules(), serializer, beanFactory,
				beanFactory.getBeanClassLoader()));
		if (!properties.getScheduler().isEnabled()) {
			schedules.clear(); // the API stays; this instance fires nothing
		}
		PlatformTransactionManager transactions = transactionManager
			.getIfUnique(() -> new DataSourceTransactionManager(dataSource));
		JdbcScheduler scheduler = new JdbcScheduler(dataSource, new AuxiliaryTables(tables), transactions, publisher,
				schedules, poll);
		scheduler.setThreads(threads.getIfAvailable(WaybillThreads::platform));
		WaybillStores registered = stores.getIfUnique();
		if (registered != null) {
			StoreTransactions storeTransactions = new StoreTransactions(dataSource, transactions);
			scheduler.setStores(() -> storeTransactions.others(registered, tables));
		}
		return scheduler;
	}

}
