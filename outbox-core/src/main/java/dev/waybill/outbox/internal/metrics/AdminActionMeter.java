package dev.waybill.outbox.internal.metrics;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.waybill.outbox.AdminAudit;

/**
 * The meter {@code waybill.admin.actions}: how many changes operators made through the admin APIs,
 * tagged {@code action} (e.g. {@code outbox.redrive}, {@code outbox.delete},
 * {@code error-queue.redrive}, {@code error-queue.discard}).
 *
 * @since 0.1
 */
public final class AdminActionMeter implements MeterBinder, AdminAudit.ActionCounter {

	/** The meter's name. */
	public static final String NAME = "waybill.admin.actions";

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
	}

	@Override
	public void count(String action) {
		for (MeterRegistry registry : this.registries) {
			Counter.builder(NAME)
				.description("Changes operators made through Waybill's admin APIs")
				.tag("action", action)
				.register(registry)
				.increment();
		}
	}

}
