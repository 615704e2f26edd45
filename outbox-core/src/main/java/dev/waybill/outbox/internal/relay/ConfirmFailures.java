package dev.waybill.outbox.internal.relay;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import dev.waybill.outbox.spi.TransportException;

/**
 * What went wrong with the confirms of a published scope, for the settler.
 */
final class ConfirmFailures {

	private ConfirmFailures() {
	}

	/**
	 * Returns the failures of a scope's confirms, each as the transport classified it; a failure
	 * the transport did not classify counts against the message.
	 * @param confirms the confirms, all completed
	 * @return the failures, none when every confirm arrived
	 */
	static List<TransportException> of(List<CompletableFuture<Void>> confirms) {
		List<TransportException> failures = new ArrayList<>();
		for (CompletableFuture<Void> confirm : confirms) {
			if (!confirm.isCompletedExceptionally()) {
				continue;
			}
			Throwable failure;
			try {
				confirm.join();
				continue;
			}
			catch (CompletionException | CancellationException ex) {
				failure = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
			}
			if (failure instanceof TransportException transportFailure) {
				failures.add(transportFailure);
			}
			else {
				failures.add(new TransportException(TransportException.Kind.MESSAGE, failure.toString(), failure));
			}
		}
		return failures;
	}

}
