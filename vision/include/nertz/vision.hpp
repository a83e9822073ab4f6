// nertz::vision — cards in camera pictures. OpenCV only (core, imgproc, imgcodecs, dnn); no Qt.
//
// The pipeline, one stage per header, each usable and testable on its own:
//
//   loadImage / toBgr8         image_io.hpp         any picture -> 8-bit BGR; size limits checked
//                                                   from the file header before decoding
//   findCardOutlines           card_outlines.hpp    quadrilaterals of separated cards + side guess
//   buildPyramid,              index_proposals.hpp  corner-index candidates: rank-glyph / suit-pip
//   proposeIndexCandidates,                         blob pairs at every scale and both ink
//   cutIndexPatch                                   polarities, each cut as an upright patch
//   IndexReader                index_reader.hpp     small CNN (models/index_cnn.onnx via cv::dnn):
//                                                   52 faces or "not an index"
//   pipInk, conditionOnInk     pip_colour.hpp       a red pip is a heart or diamond, a black one a
//                                                   club or spade, a lit key's glow no index
//   groupIndices               detector.hpp         two corners of one card -> one card
//   Detector::detect           detector.hpp         all of the above: picture -> Detection
//   readLakeTops               lake_tops.hpp        a Detection of the lake -> one top per pile
//                                                   (a peeking card under it left out), and the
//                                                   face-up outlines no reading explains;
//                                                   with the picture, card-like regions no card
//                                                   found explains (unexplainedRegions), and tops
//                                                   of two suits on one another (clashes)
//   loadLabelledFolder,        evaluation.hpp       card-level precision / recall on labelled
//   scoreImage                                      folders (../shared/data/real-cards format)
//
// Typical use:
//
//   nertz::vision::Detector detector;                    // loads models/ (or $NERTZ_MODEL_DIR)
//   nertz::vision::Detection d = detector.detect(nertz::vision::loadImage("table.jpg"));
//   for (const auto& card : d.cards) if (card.face) std::cout << card.face->name() << "\n";
//
// Errors a user can cause are exceptions with a message: ImageError (bad picture), ModelError
// (missing model file). Nothing here keeps global state; a Detector serves one thread at a time.
#pragma once

#include "nertz/vision/card_outlines.hpp"
#include "nertz/vision/detector.hpp"
#include "nertz/vision/evaluation.hpp"
#include "nertz/vision/image_io.hpp"
#include "nertz/vision/index_proposals.hpp"
#include "nertz/vision/index_reader.hpp"
#include "nertz/vision/lake_tops.hpp"
#include "nertz/vision/pip_colour.hpp"
