package dev.waybill.retention.autoconfigure;

import java.time.Duration;
import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration;
import dev.waybill.outbox.store.WaybillStores;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionRunner;
import dev.waybill.retention.internal.RetentionSettings;
import dev.waybill.retention.internal.RetentionWorker;
import dev.waybill.retention.internal.StoreRetention;
import dev.waybill.retention.internal.metrics.RetentionMetrics;

/**
 * Runs the {@link RetentionWorker} on Waybill's tables where {@code waybill.retention.enabled} is
 * not {@code false} and {@code waybill.retention.machine-names} is empty or names this host. Logs
 * at start-up which host name it used and whether the worker runs here and why, and fails the
 * start-up on invalid {@code waybill.retention.*} values on every host, whether or not the worker
 * runs there. The worker is also the {@link RetentionRunner} bean, which runs a purge on demand.
 *
 * @since 0.1
 */
@AutoConfiguration(after = WaybillAutoConfiguration.class)
@ConditionalOnBean({ DataSource.class, OutboxTables.class })
@EnableConfigurationProperties(WaybillRetentionProperties.class)
public final class WaybillRetentionAutoConfiguration {

	private static final Log logger = LogFactory.getLog(WaybillRetentionAutoConfiguration.class);

	/**
	 * The selection, logged at start-up on every host; never lazy
	 * ({@code spring.main.lazy-initialization}), or a host without the worker would create it never.
	 */
	@Bean
	@ConditionalOnMissingBean
	@Lazy(false)
	RetentionHostSelection waybillRetentionHostSelection(Environment environment) {
		RetentionHostSelection selection = RetentionHostSelection.resolve(environment);
		logger.info(selection.describe());
		return selection;
	}

	/**
	 * The checked settings, on every host (also where the worker does not run), so that a bad
	 * value fails every host's start-up and not only the host that purges. Never lazy
	 * ({@code spring.main.lazy-initialization}): only the worker uses them, and a host without the
	 * worker would check them never.
	 */
	@Bean
	@ConditionalOnMissingBean
	@Lazy(false)
	RetentionSettings waybillRetentionSettings(WaybillRetentionProperties properties, Environment environment) {
		Duration window = Binder.get(environment)
			.bind(WaybillRetentionProperties.DUPLICATE_DETECTION_WINDOW_PROPERTY, Duration.class)
			.orElse(WaybillRetentionProperties.DEFAULT_DUPLICATE_DETECTION_WINDOW);
		RetentionSettings settings = properties.toSettings(window);
		if (settings.purgePendingAfter() != null && !settings.purgeIncomplete()) {
			logger.warn("waybill.retention.purge-pending-after (" + settings.purgePendingAfter() + ") has no effect "
					+ "while waybill.retention.purge-incomplete-after is unset; pending scopes are kept");
		}
		return settings;
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnRetentionHostCondition.class)
	RetentionWorker waybillRetentionWorker(DataSource dataSource, OutboxTables tables, RetentionSettings settings,
			WaybillRetentionProperties properties,
			ObjectProvider<RetentionListener> listeners, RetentionHostSelection selection,
			ObjectProvider<WaybillThreads> threads, ObjectProvider<StoreRetention> otherStores) {
		RetentionListener listener = listeners.orderedStream().reduce(RetentionListener.NONE, RetentionListener::andThen);
		RetentionWorker worker = new RetentionWorker(dataSource, tables, settings, listener);
		worker.setThreads(threads.getIfAvailable(WaybillThreads::platform));
		worker.setArchive(properties.toArchive());
		worker.setPacing(properties.toPacing());
		worker.setOtherStores(otherStores.getIfUnique());
		if (!selection.runs()) {
			// Registered only by ahead-of-time processing (see OnRetentionHostCondition): the build
			// host's selection is not this host's.
			worker.disable();
		}
		return worker;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(WaybillStores.class)
	@Conditional(OnRetentionHostCondition.class)
	StoreRetention waybillStoreRetention(WaybillStores stores, OutboxTables tables, RetentionSettings settings,
			WaybillRetentionProperties properties, ObjectProvider<RetentionListener> listeners) {
		RetentionListener listener = listeners.orderedStream().reduce(RetentionListener.NONE, RetentionListener::andThen);
		return new StoreRetention(stores, (store) -> {
			RetentionWorker worker = new RetentionWorker(store.dataSource(), tables.withSchema(store.schema()), settings,
					listener);
			worker.setArchive(properties.toArchive());
			worker.setPacing(properties.toPacing());
			return worker;
		});
	}

	/**
	 * The worker's Micrometer meters, where Micrometer is on the class path and the worker runs.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
	@Conditional(OnRetentionHostCondition.class)
	static class RetentionMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RetentionMetrics waybillRetentionMetrics() {
			return new RetentionMetrics();
		}

	}

	/**
	 * Matches where {@link RetentionHostSelection} says the worker runs, and always during Spring's
	 * ahead-of-time processing: that fixes the conditions' outcomes at build time, on the build
	 * host, while the host that runs the worker is known at start-up only. The worker is then
	 * registered everywhere and {@linkplain RetentionWorker#disable() disabled} at start-up where
	 * the selection excludes the host.
	 */
	static final class OnRetentionHostCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			ConditionMessage.Builder message = ConditionMessage.forCondition("Waybill retention host");
			if (Boolean.getBoolean(AbstractAotProcessor.AOT_PROCESSING)) {
				return ConditionOutcome.match(message.because("ahead-of-time processing: the host is selected at start-up"));
			}
			RetentionHostSelection selection;
			try {
				selection = RetentionHostSelection.resolve(context.getEnvironment());
			}
			catch (RuntimeException ex) {
				// The selection bean reports the invalid property when it fails the start-up.
				return ConditionOutcome.noMatch(message.because(ex.getMessage()));
			}
			return selection.runs() ? ConditionOutcome.match(message.because(selection.describe()))
					: ConditionOutcome.noMatch(message.because(selection.describe()));
		}

	}

}
