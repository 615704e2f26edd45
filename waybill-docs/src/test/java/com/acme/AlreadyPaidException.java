package com.acme;

/** An exception of the example application that docs/consuming.md configures by class name. */
public class AlreadyPaidException extends RuntimeException {
}
